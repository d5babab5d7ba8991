/** Prints a greeting. */
public class App {
    /** The greeting for a name. */
    static String greet(String name) {
        return "hello " + name;
    }

    public static void main(String[] args) {
        System.out.println(greet(nmae));
    }
}
