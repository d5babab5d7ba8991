/* device_class.h - C that names things with C++'s words: it stays C.
 *
 * An example from the documentation, inside this comment:
 *
 *   class Registry {
 *   public:
 *   template <typename T> ...
 */
#ifndef DEVICE_CLASS_H
#define DEVICE_CLASS_H

struct class {
	const char *name;
	int (*probe)(struct class *class, void *new);
};

/*
namespace {
   class Hidden {
*/

/* Registers class under namespace; private is passed through. */
static inline int class_register(struct class *class, const char *namespace, void *private)
{
	int this = 0;
	if (class && namespace)
		this = class->probe(class, private);
	return this;
}

#endif
