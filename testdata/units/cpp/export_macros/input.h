// widget.h - a C++ header written the way libraries export their classes:
// macros the grammar cannot expand, in class heads and before members.
#pragma once

#define WIDGET_EXPORT __attribute__((visibility("default")))
#define WIDGET_NODISCARD [[nodiscard]]
#define WIDGET_NOEXCEPT noexcept
#define WIDGET_VISIBLE(x) __attribute__((visibility(#x)))
#define WIDGET_OBJECT
#define MAX_LEN 64

namespace ui WIDGET_VISIBLE(default) {
WIDGET_BEGIN_VERSION
WIDGET_BEGIN_ABI

/// The modes a widget is drawn in.

enum Mode {
	MODE_NONE
};

class WIDGET_EXPORT Widget : public Base {
	WIDGET_OBJECT
public:
	Widget() WIDGET_NOEXCEPT : width_(0) {}

	WIDGET_NODISCARD
	int width() const { return width_; }

	WIDGET_NODISCARD bool empty() const { return width_ == 0; }

	static WIDGET_CONSTEXPR int limit() { return MAX_LEN; }

	int height() const WIDGET_NOEXCEPT { return width_ / 2; }

	template <typename T>
	WIDGET_NODISCARD WIDGET_CONSTEXPR
	T scaled(T factor) const { return width_ * factor; }

	void clamp(int w) WIDGET_NOEXCEPT
	{
		struct STAT st;
		width_ = (int) MAX_LEN;
		if (w < width_)
			width_ = w;
		return (void) MAX_LEN;
	}

private:
	int width_;
};

struct WIDGET_EXPORT Point final {
	int x, y;
};

} // namespace ui
