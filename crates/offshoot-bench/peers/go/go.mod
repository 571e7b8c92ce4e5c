module offshoot.example/peers

go 1.21
