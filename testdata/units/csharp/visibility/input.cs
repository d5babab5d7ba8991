class Vis
{
    public int A;
    protected int B;
    private int C;
    internal int D;
    int E;
    protected internal int F;
    private protected int G;

    public void Pub() {}
    void Default() {}
    private void Priv() {}
    internal static void Util() {}

    class Nested
    {
        public void Inner() {}
    }

    public interface ICallback
    {
        void Call();
    }

    void IDisposable.Dispose() {}
}

public partial class Shown
{
    public Shown() {}
    static Shown() {}
}
