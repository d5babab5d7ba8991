using System.Linq;
using static System.Math;
using Json = System.Text.Json;

namespace Shop
{
    public class Cart : Base, IPriced, System.IDisposable, IEnumerable<Item>
    {
        private readonly List<Item> items = new List<Item>();

        public void Add(Item item)
        {
            items.Add(item);
            Log("added");
            var copy = new Item { Name = item.Name };
            Refresh<int>();
        }

        public double Price()
        {
            return Round(items.Sum(i => i.Price()));
        }

        void Refresh<T>()
        {
            base.Refresh();
            Action a = Helper;
            int Local(int x) => Twice(x);
        }
    }

    interface IBag<T> : IEnumerable<T>, ISized
    {
    }

    struct Money : IEquatable<Money>
    {
    }
}
