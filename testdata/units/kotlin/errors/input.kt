class Broken {
    fun ok() {
        run()
    }

    fun bad() {
        val x = 
    }

    fun worse() {
        run(1, 2
    }

    fun after() {
        run()
    }
}
