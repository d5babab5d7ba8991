using System;
using System.Collections.Generic;

namespace Shop.Orders
{
    public class Order
    {
        private readonly string id;
        public int Count { get; set; }
        public const int Max = 10;
        public event EventHandler Changed;

        public Order(string id)
        {
            this.id = id;
        }

        ~Order() { }

        public string this[int index] => id;

        public static Order operator +(Order a, Order b) => a;

        public class Line
        {
            internal double Price;
        }
    }

    public struct Point
    {
        public int X, Y;
    }

    public enum State
    {
        Open,
        Closed = 2
    }

    public interface IPriced
    {
        double Price();
        string Name { get; }
    }

    public record Person(string Name, int Age);

    public delegate void Notify(string message);
}

namespace Shop.Tools;

static class Helpers
{
    public static int Twice(this int x) => x * 2;
}

public class Props
{
    private int count;

    public int Count
    {
        get { return count; }
        set { count = value; }
    }

    public string Label => "n=" + count;

    public int Total { get; init; } = 0;
}
