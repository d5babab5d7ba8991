package nav;

/** Something that reads bytes. */
public interface Reader {
    int read(byte[] buf);
}

class FileReader implements Reader {
    public int read(byte[] buf) { return fill(buf); }
    private int fill(byte[] buf) { return 0; }
}

class NetReader implements Reader {
    public int read(byte[] buf) { return 0; }
}
