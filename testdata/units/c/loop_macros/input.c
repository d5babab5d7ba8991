/* Loops closed by a macro: `do { ... } while_each_thread(p, t);` is not C
 * the grammar can read, and its recovery used to take the function and
 * every one after it into an error. */

int visit_group(struct group *dst, struct task *leader, bool all)
{
	DEFINE_VISIT_CTX(ctx);
	struct task *t;
	int ret = 0;

	lock_groups(&group_lock);
	t = leader;
	do {
		add_source(task_set(t), dst, &ctx);
		if (!all)
			break;
	} while_each_thread(leader, t);
	unlock_groups(&group_lock);

	ret = prepare_visit(&ctx);
	if (!ret)
		ret = run_visit(leader, all, &ctx);
	return ret;
}

static void each_mask(unsigned long mask)
{
	int ssid;
	do_each_subsys_mask(ss, ssid, mask) {
		visit(ssid);
	} while_each_subsys_mask();
}

static int after(void)
{
	return visit_group(NULL, NULL, false);
}
