#pragma once
#include <string>
#include "base.h"

namespace shop {

/// An item for sale.
class Item : public Base {
public:
  Item(std::string name, int price);
  virtual ~Item();

  /// Price in cents.
  int price() const { return price_; }
  static Item parse(const std::string &s);

protected:
  void touch();

private:
  std::string name_;
  int price_ = 0;
};

struct Point {
  int x, y;
  double length() const;
};

enum class Kind { Book, Food };

using Price = int;

} // namespace shop

static int helper(int v) { return v * 2; }
