class Vis {
    val a = 1
    public val b = 2
    private val c = 3
    protected val d = 4
    internal val e = 5

    fun pub() {}
    private fun priv() {}
    protected fun prot() {}
    internal fun inter() {}

    private class Hidden {
        fun inner() {}
    }

    companion object {
        fun make() = Vis()
        private const val SECRET = "x"
    }
}

private fun helper() {}
private val hidden = 0
