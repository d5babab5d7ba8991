/* Functions handed to macros at file scope: the grammar reads
 * DECLARE_WORK(...) as a type and swallows the module_init(...) after it
 * as a declarator; both name their functions as values. */

static int foo_init(void) { return 0; }
static void foo_exit(void) { }
static void work_fn(struct work_struct *w) { }
static DECLARE_WORK(my_work, work_fn);
module_init(foo_init);
module_exit(foo_exit);
int proto(size_t);
