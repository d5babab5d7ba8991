class Broken {
    func ok() {
        run()
    }

    func bad( {
        let x = 
    }

    func after() {
        run()
    }
}
