int ok() { return 1; }

int broken(int x { return x; }

class After {
public:
  int run() { return ok(); }
};
