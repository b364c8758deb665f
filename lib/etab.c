// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * etab.c - read knfsd's export table.
 *
 * Formats (etab.h): the kernel prints PATH<TAB>CLIENT(flags) from
 * fs/nfsd/export.c:svc_export_show(), escaping the path with seq_path's
 * octal escapes and printing "async" or "sync" among the flags; nfs-utils'
 * exportfs writes /var/lib/nfs/etab with putexportent() in the same shape,
 * escaping blanks, '"', '\' and '#' as \ooo.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etab.h"
#include "procfs.h"

/* "/srv/nfs/" and "/srv/nfs" are the same export; "/" stays "/". */
static size_t path_len(const char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	return n;
}

static struct nfswb_knfsd_export *lookup(const struct nfswb_etab *e,
					 const char *path, size_t len)
{
	for (size_t i = 0; i < e->count; i++) {
		const char *p = e->entries[i].path;

		if (path_len(p) == len && strncmp(p, path, len) == 0)
			return &e->entries[i];
	}
	return NULL;
}

/* Does the comma-separated @opts hold exactly @word? */
static bool has_opt(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

static int add_line(struct nfswb_etab *out, char *line)
{
	struct nfswb_knfsd_export *x;
	char *path = line, *client, *open, *close;
	bool async;
	size_t len;

	while (isblank((unsigned char)*path))
		path++;
	if (!*path || *path == '#')
		return 0;
	if (*path != '/')
		goto skip;
	client = path + strcspn(path, " \t");
	if (!*client)
		goto skip;
	*client++ = '\0';
	client += strspn(client, " \t");
	open = strchr(client, '(');
	close = open ? strrchr(open, ')') : NULL;
	if (!open || !close || open == client)
		goto skip;
	*close = '\0';
	open++;
	if (has_opt(open, "v4root"))
		return 0;
	async = has_opt(open, "async");

	nfswb_unescape_octal(path);
	len = path_len(path);
	path[len] = '\0';
	x = lookup(out, path, len);
	if (!x) {
		struct nfswb_knfsd_export *n;
		char *copy = strdup(path);

		n = copy ? realloc(out->entries,
				   (out->count + 1) * sizeof(*n)) : NULL;
		if (!n) {
			free(copy);
			return -ENOMEM;
		}
		out->entries = n;
		x = &out->entries[out->count++];
		x->path = copy;
		x->async = false;
		x->clients = 0;
	}
	x->async |= async;
	x->clients++;
	return 0;
skip:
	out->skipped++;
	return 0;
}

int nfswb_etab_parse(const char *text, struct nfswb_etab *out)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);
		int ret;

		if (!line)
			return -ENOMEM;
		ret = add_line(out, line);
		free(line);
		if (ret)
			return ret;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static int load_file(const char *sysroot, const char *name,
		     struct nfswb_etab *out)
{
	char file[4096], *text = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;
	int ret = -ENOMEM;

	if ((size_t)snprintf(file, sizeof(file), "%s%s", sysroot, name) >=
	    sizeof(file))
		return -ENAMETOOLONG;
	f = fopen(file, "re");
	if (!f)
		return -errno;
	do {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(text, cap = len + 65536);

			if (!t)
				goto out;
			text = t;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		ret = -EIO;
		goto out;
	}
	text[len] = '\0';
	ret = nfswb_etab_parse(text, out);
out:
	fclose(f);
	free(text);
	return ret;
}

int nfswb_etab_load(const char *sysroot, struct nfswb_etab *out)
{
	static const char *const files[] = {
		"/proc/fs/nfs/exports", "/var/lib/nfs/etab",
	};
	int found = 0, ret;

	if (!sysroot)
		sysroot = "";
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		ret = load_file(sysroot, files[i], out);
		if (ret == 0)
			found++;
		else if (ret != -ENOENT)
			return ret;
	}
	return found ? 0 : -ENOENT;
}

const struct nfswb_knfsd_export *nfswb_etab_find(const struct nfswb_etab *e,
						 const char *path)
{
	return lookup(e, path, path_len(path));
}

const struct nfswb_knfsd_export *
nfswb_etab_covering(const struct nfswb_etab *e, const char *path)
{
	size_t len = path_len(path);

	for (;;) {
		const struct nfswb_knfsd_export *x = lookup(e, path, len);

		if (x)
			return x;
		if (len <= 1)
			return NULL;
		/* Up one component: "/a/b" -> "/a", "/a" -> "/". */
		while (len > 1 && path[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
	}
}

void nfswb_etab_free(struct nfswb_etab *e)
{
	for (size_t i = 0; i < e->count; i++)
		free(e->entries[i].path);
	free(e->entries);
	memset(e, 0, sizeof(*e));
}
