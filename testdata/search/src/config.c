/* config.c - reading the settings file. */
#include <stdio.h>
#include <stdlib.h>
#include "config.h"

/**
 * parse_config - reads key=value lines from the settings file at path
 * into cfg.  Returns 0 or -1 when the file cannot be opened.
 */
int parse_config(const char *path, struct config *cfg)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		config_set_line(cfg, line);
	fclose(f);
	return 0;
}

/* Drops every entry of the table. */
static void free_entries(struct config *cfg)
{
	for (size_t i = 0; i < cfg->n; i++)
		free(cfg->entries[i]);
	cfg->n = 0;
}

/**
 * Compresses a buffer in place with run-length encoding and returns the
 * new size.
 */
size_t shrink_blob(unsigned char *buf, size_t len)
{
	size_t out = 0;

	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && buf[j] == buf[i] && j - i < 255)
			j++;
		buf[out++] = (unsigned char)(j - i);
		buf[out++] = buf[i];
		i = j;
	}
	return out;
}

void config_release(struct config *cfg)
{
	free_entries(cfg);
	free(cfg->entries);
}
