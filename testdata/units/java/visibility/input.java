public class Vis {
    public int a;
    protected int b;
    private int c;
    int d;

    public void pub() {}
    protected void prot() {}
    private void priv() {}
    void pkg() {}
    static void util() {}

    private static class Hidden {
        public void inner() {}
    }

    protected interface Callback {
        void call();
    }
}

class PackageClass {
    private PackageClass() {}
}
