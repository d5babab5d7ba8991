public class Broken {
    public void ok() {
        run();
    }

    public void bad( {
        int x = ;
    }

    public void after() {
        run();
    }
}
