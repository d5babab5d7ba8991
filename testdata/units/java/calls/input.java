import java.util.List;
import java.util.ArrayList;
import static java.util.Collections.sort;
import java.io.*;

public class Cart extends Base implements Priced, java.io.Serializable {
    private final List<Item> items = new ArrayList<>();

    public void add(Item item) {
        items.add(item);
        log("added");
        sort(items);
    }

    public double price() {
        double sum = 0;
        for (Item i : items) {
            sum += i.price();
        }
        return Math.round(sum);
    }

    public Cart copy() {
        Cart c = new Cart();
        c.items.addAll(this.items);
        Runnable r = () -> refresh();
        return c;
    }

    private void refresh() {
        super.refresh();
    }
}

interface Bag<T> extends Iterable<T>, Sized {
}

enum Color implements Named {
    RED, GREEN;

    public String label() { return name().toLowerCase(); }
}
