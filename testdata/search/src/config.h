/* config.h - the settings table. */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

/* One parsed settings file. */
struct config {
	char **entries; /* "key=value" strings */
	size_t n;       /* entries used */
};

int parse_config(const char *path, struct config *cfg);
void config_set_line(struct config *cfg, const char *line);
void config_release(struct config *cfg);
size_t shrink_blob(unsigned char *buf, size_t len);

#endif
