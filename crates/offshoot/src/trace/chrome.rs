//! The trace as Chrome/Perfetto trace-event JSON.

use std::fmt::Write as _;
use std::io;
use std::time::Duration;

use super::{SliceKind, Trace};

impl Trace {
    /// Writes the trace as Chrome/Perfetto trace-event JSON: one track (thread) per worker
    /// with its task segments and sleeps as complete slices, regions as async slices (one
    /// track per task), each hand-out as a short "hand out" slice on the victim's track
    /// with a flow arrow to the task it became on the thief's.
    pub fn write_chrome_json(&self, mut out: impl io::Write) -> io::Result<()> {
        out.write_all(self.to_chrome_json().as_bytes())
    }

    /// [`Trace::write_chrome_json`] into a string.
    pub fn to_chrome_json(&self) -> String {
        let us = |d: Duration| d.as_nanos() as f64 / 1000.0;
        let mut s = String::from("{\"traceEvents\":[");
        let mut first = true;
        let mut ev = |s: &mut String, body: String| {
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str("\n{");
            s.push_str(&body);
            s.push('}');
        };
        ev(
            &mut s,
            "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"offshoot pool\"}".into(),
        );
        for (i, w) in self.workers.iter().enumerate() {
            ev(
                &mut s,
                format!(
                    "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{},\"args\":{{\"name\":{}}}",
                    i + 1,
                    json_str(&w.name)
                ),
            );
            ev(
                &mut s,
                format!(
                    "\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":{},\"args\":{{\"sort_index\":{i}}}",
                    i + 1
                ),
            );
        }
        for sl in self.slices() {
            let tid = sl.worker + 1;
            match sl.kind {
                SliceKind::Task | SliceKind::Sleep => {
                    let cat = if sl.kind == SliceKind::Task {
                        "task"
                    } else {
                        "idle"
                    };
                    let mut args = format!("\"task\":{}", sl.task);
                    if let Some(p) = sl.parked_on {
                        let _ = write!(args, ",\"parked on\":{}", json_str(p));
                    }
                    ev(
                        &mut s,
                        format!(
                            "\"name\":{},\"cat\":\"{cat}\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":1,\"tid\":{tid},\"args\":{{{args}}}",
                            json_str(&sl.label),
                            us(sl.start),
                            us(sl.end - sl.start),
                        ),
                    );
                }
                SliceKind::Region => {
                    for (ph, t) in [("b", sl.start), ("e", sl.end)] {
                        ev(
                            &mut s,
                            format!(
                                "\"name\":{},\"cat\":\"region\",\"ph\":\"{ph}\",\"id\":\"0x{:x}\",\"ts\":{:.3},\"pid\":1,\"tid\":{tid}",
                                json_str(&sl.label),
                                sl.task,
                                us(t),
                            ),
                        );
                    }
                }
            }
        }
        for (n, st) in self.steals().iter().enumerate() {
            ev(
                &mut s,
                format!(
                    "\"name\":\"hand out\",\"cat\":\"steal\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":0,\"pid\":1,\"tid\":{},\"args\":{{\"to worker\":{}}}",
                    us(st.at),
                    st.victim + 1,
                    st.thief
                ),
            );
            ev(
                &mut s,
                format!(
                    "\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"s\",\"id\":{n},\"ts\":{:.3},\"pid\":1,\"tid\":{}",
                    us(st.at),
                    st.victim + 1
                ),
            );
            ev(
                &mut s,
                format!(
                    "\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{n},\"ts\":{:.3},\"pid\":1,\"tid\":{}",
                    us(st.started),
                    st.thief + 1
                ),
            );
        }
        let _ = write!(
            s,
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\"dropped events\":{}}}}}\n",
            self.dropped()
        );
        s
    }
}

/// `v` as a JSON string literal.
fn json_str(v: &str) -> String {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::json_str;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\nd"), "\"a\\\"b\\\\c\\u000ad\"");
    }
}
