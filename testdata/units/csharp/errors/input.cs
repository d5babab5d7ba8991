public class Broken
{
    public void Ok()
    {
        Run();
    }

    public void Bad()
    {
        int x = ;
        Run(;
    }

    public int Count
    {
        get { return count }
    }

    public void After()
    {
        Run();
    }
}
