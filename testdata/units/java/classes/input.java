package com.example.shop;

public class Order {
    private final String id;
    protected int count = 0, limit;
    public static final int MAX = 10;

    public Order(String id) {
        this.id = id;
    }

    public String getId() {
        return id;
    }

    public static class Line {
        double price;

        Line(double price) {
            this.price = price;
        }
    }

    private enum State {
        OPEN,
        CLOSED {
            @Override
            public String toString() { return "closed"; }
        };

        boolean isOpen() { return this == OPEN; }
    }
}

interface Priced {
    int UNIT = 100;

    double price();

    default double priceWithTax() {
        return price() * 1.2;
    }
}

record Point(int x, int y) {
    Point {
        if (x < 0) throw new IllegalArgumentException();
    }

    static Point origin() { return new Point(0, 0); }
}

@interface Audited {
    String value() default "";
}
