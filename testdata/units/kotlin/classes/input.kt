package com.example.shop

import kotlin.math.max

const val MAX_ITEMS = 10
val greeting = "hi"

class Order(val id: String, private var qty: Int = 1) : Base(), Comparable<Order> {
    var status: String = "open"
    val total: Double
        get() = qty * 2.0

    constructor(id: String, extra: Boolean) : this(id)

    init {
        check(qty > 0)
    }

    fun add(n: Int): Int {
        qty += n
        return qty
    }

    override fun compareTo(other: Order): Int = id.compareTo(other.id)

    companion object Factory {
        fun create(): Order = Order("x")
    }

    inner class Line(val price: Double)

    data class Note(val text: String)
}

interface Priced {
    val price: Double
    fun discount(pct: Int): Double
}

enum class State(val code: Int) {
    OPEN(1),
    CLOSED(2) {
        override fun label() = "closed"
    };

    open fun label(): String = name
}

object Registry {
    fun register(o: Order) {}
}

sealed class Result {
    data class Ok(val value: Int) : Result()
    object Failed : Result()
}

typealias Orders = List<Order>

fun String.shout(): String = uppercase()

fun <T> identity(x: T): T = x
