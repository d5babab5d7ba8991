import kotlinx.coroutines.*
import java.util.List as JList

class Cart(private val items: MutableList<Item>) : Base(), Priced, java.io.Serializable {
    fun add(item: Item) {
        items.add(item)
        log("added")
        val copy = Item(item.name)
        refresh()
        items.forEach { it.touch() }
        this?.maybe()
    }

    override fun price(): Double = items.sumOf { it.price() }

    private fun refresh() {
        super.refresh()
    }
}

interface Bag<T> : Iterable<T>, Sized

object Cache : Store by MemoryStore()
