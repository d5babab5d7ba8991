namespace app {
class Foo : public Base, private Other<int> {
public:
  Foo(int x);
  ~Foo();
  virtual void run() const override;
  int get() const { return x_; }
  static Foo make();
  bool operator==(const Foo &o) const;
private:
  int x_;
};
template <typename T> T max(T a, T b) { return a > b ? a : b; }
Foo::Foo(int x) : x_(x) {}
void Foo::run() const { helper(); obj.go(); ns::f(); auto p = new Foo(1); std::make_unique<Foo>(2); }
enum class Color { Red, Green };
using Id = long;
}
