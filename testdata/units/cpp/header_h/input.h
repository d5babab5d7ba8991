/* ring_buffer.h - a fixed-size ring of samples: a C++ header named .h,
 * as most C++ projects name theirs. */
#ifndef RING_BUFFER_H
#define RING_BUFFER_H

#include <cstddef>
#include <vector>

namespace audio {

/* Counts what the ring dropped when it was full. */
struct Stats {
	std::size_t dropped = 0;
};

template <typename T>
class RingBuffer {
public:
	explicit RingBuffer(std::size_t capacity) : items_(capacity) {}

	/* Adds one sample; the oldest goes when the ring is full. */
	bool push(const T &value)
	{
		if (count_ == items_.size()) {
			stats_.dropped++;
			head_ = (head_ + 1) % items_.size();
			count_--;
		}
		items_[(head_ + count_) % items_.size()] = value;
		count_++;
		return true;
	}

	std::size_t size() const { return count_; }

private:
	std::vector<T> items_;
	std::size_t head_ = 0, count_ = 0;
	Stats stats_;
};

} // namespace audio

#endif
