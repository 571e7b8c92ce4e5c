//! `Option` and `Result` as rayon's parallel sources: by value, by reference
//! (`par_iter()`) and by mutable reference (`par_iter_mut()`), each yielding the `Some`/`Ok`
//! value once or nothing.

mod common;

use common::bounded;
use offshoot::prelude::*;

#[test]
fn results_and_options_iterate_their_value() {
    bounded(|| {
        common::pool(2).install(|| {
            let ok: Result<i32, String> = Ok(7);
            let err: Result<i32, String> = Err("no".into());
            assert_eq!(ok.par_iter().copied().collect::<Vec<_>>(), [7]);
            assert_eq!(err.par_iter().count(), 0);
            let mut m: Result<Vec<i32>, ()> = Ok(vec![1]);
            m.par_iter_mut().for_each(|v| v.push(2));
            assert_eq!(m, Ok(vec![1, 2]));
            let mut e: Result<i32, u8> = Err(3);
            assert_eq!(e.par_iter_mut().count(), 0);
            assert_eq!(ok.clone().into_par_iter().sum::<i32>(), 7);

            let some = Some(5);
            assert_eq!(some.par_iter().copied().max(), Some(5));
            let mut o = Some(1);
            o.par_iter_mut().for_each(|x| *x += 1);
            assert_eq!(o, Some(2));
        })
    })
}
