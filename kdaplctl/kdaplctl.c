// SPDX-License-Identifier: GPL-2.0
/*
 * kdaplctl: look at kdapl and configure libdat2 for it.
 *
 *   kdaplctl list [--json]          the Interface Adapters and their state
 *   kdaplctl dat-conf [--install [FILE] | --remove [FILE]]
 *                                   dat.conf lines for the present IAs
 *   kdaplctl objects [--json]       live objects, open files, pinned pages,
 *                                   and what each owner has
 *   kdaplctl stats [--json] [IA...] counters of posts, completions, events
 *                                   and errors, per IA
 *
 * The IAs come from /sys/class/kdapl (one directory per IA), the objects
 * from debugfs (root only).  See kdaplctl(8).
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLASS_DIR	"/sys/class/kdapl"
#define OBJECTS_FILE	"/sys/kernel/debug/kdapl/objects"
#define OWNERS_FILE	"/sys/kernel/debug/kdapl/owners"
#define DAT_CONF	"/etc/dat.conf"
#define BLOCK_BEGIN	"# BEGIN kdapl: written by kdaplctl dat-conf --install"
#define BLOCK_END	"# END kdapl"
#define MAX_IAS		256
#define MAX_STATS	64
#define VAL_MAX		256

static const char *const ia_attrs[] = {
	"ibdev", "port", "netdev", "address", "transport", "state", "ias",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NATTRS		ARRAY_SIZE(ia_attrs)

struct ia {
	char name[VAL_MAX];
	char val[NATTRS][VAL_MAX];
};

static bool json;

/* One line of a sysfs file, without its newline; "" if unreadable. */
static void read_attr(const char *ia, const char *attr, char *buf)
{
	char path[512];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), CLASS_DIR "/%s/%s", ia, attr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, VAL_MAX, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int cmp_ia(const void *a, const void *b)
{
	return strcmp(((const struct ia *)a)->name,
		      ((const struct ia *)b)->name);
}

/* The IAs in sysfs, sorted by name; -1 if kdapl is not loaded. */
static int read_ias(struct ia *ias)
{
	struct dirent *d;
	unsigned int i;
	DIR *dir;
	int n = 0;

	dir = opendir(CLASS_DIR);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < MAX_IAS) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(ias[n].name, VAL_MAX, "%.200s", d->d_name);
		for (i = 0; i < NATTRS; i++)
			read_attr(d->d_name, ia_attrs[i], ias[n].val[i]);
		n++;
	}
	closedir(dir);
	qsort(ias, n, sizeof(*ias), cmp_ia);
	return n;
}

static int no_kdapl(void)
{
	fprintf(stderr, "kdaplctl: %s: %s (is kdapl loaded?)\n", CLASS_DIR,
		strerror(errno));
	return 1;
}

/* A JSON string; sysfs values and IA names need no escapes but these. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int cmd_list(int argc, char **argv)
{
	static struct ia ias[MAX_IAS];
	unsigned int j;
	int i, n;

	(void)argc;
	(void)argv;
	n = read_ias(ias);
	if (n < 0)
		return no_kdapl();
	if (json) {
		printf("[");
		for (i = 0; i < n; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			json_str(ias[i].name);
			for (j = 0; j < NATTRS; j++) {
				printf(", \"%s\": ", ia_attrs[j]);
				json_str(ias[i].val[j]);
			}
			printf("}");
		}
		printf("]\n");
		return 0;
	}
	printf("%-20s %-10s %4s %-10s %-15s %-9s %-8s %s\n", "NAME", "DEVICE",
	       "PORT", "NETDEV", "ADDRESS", "TRANSPORT", "STATE", "IAS");
	for (i = 0; i < n; i++)
		printf("%-20s %-10s %4s %-10s %-15s %-9s %-8s %s\n",
		       ias[i].name, ias[i].val[0], ias[i].val[1],
		       ias[i].val[2][0] ? ias[i].val[2] : "-",
		       ias[i].val[3][0] ? ias[i].val[3] : "-", ias[i].val[4],
		       ias[i].val[5], ias[i].val[6]);
	return 0;
}

/* The dat.conf lines of the present IAs, into @out. */
static int print_dat_conf(FILE *out)
{
	static struct ia ias[MAX_IAS];
	int i, n;

	n = read_ias(ias);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(out, "%s u2.0 nonthreadsafe default %s dapl.2.0 \"%s\" \"\"\n",
			ias[i].name, "libdaplkdapl.so.2", ias[i].name);
	return 0;
}

/*
 * Rewrite @path without its kdapl block and, with @add, with a new one
 * at the end: the same result however often it runs.  The new file
 * replaces the old one with rename(), so that a reader sees one or the
 * other.
 */
static int rewrite_dat_conf(const char *path, bool add)
{
	char tmp[4096], line[4096];
	bool inside = false;
	FILE *in, *out;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.kdaplctl.tmp", path);
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "kdaplctl: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	in = fopen(path, "r");
	while (in && fgets(line, sizeof(line), in)) {
		if (!strncmp(line, BLOCK_BEGIN, strlen(BLOCK_BEGIN)))
			inside = true;
		else if (inside && !strncmp(line, BLOCK_END, strlen(BLOCK_END)))
			inside = false;
		else if (!inside)
			fputs(line, out);
	}
	if (in)
		fclose(in);
	if (add) {
		fprintf(out, "%s\n", BLOCK_BEGIN);
		if (print_dat_conf(out))
			ret = no_kdapl();
		fprintf(out, "%s\n", BLOCK_END);
	}
	if (fclose(out) || ret || rename(tmp, path)) {
		if (!ret)
			fprintf(stderr, "kdaplctl: %s: %s\n", path,
				strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

static int cmd_dat_conf(int argc, char **argv)
{
	const char *path = DAT_CONF;

	if (argc >= 2 && (!strcmp(argv[1], "--install") ||
			  !strcmp(argv[1], "--remove"))) {
		if (argc >= 3)
			path = argv[2];
		return rewrite_dat_conf(path, !strcmp(argv[1], "--install"));
	}
	if (argc > 1) {
		fprintf(stderr, "kdaplctl: dat-conf: unknown option %s\n",
			argv[1]);
		return 2;
	}
	return print_dat_conf(stdout) ? no_kdapl() : 0;
}

/* The totals: "<name> <count>" lines of debugfs objects. */
static int show_totals(void)
{
	bool first = true;
	char name[64];
	long count;
	FILE *f;

	f = fopen(OBJECTS_FILE, "r");
	if (!f) {
		fprintf(stderr, "kdaplctl: %s: %s (root, debugfs mounted?)\n",
			OBJECTS_FILE, strerror(errno));
		return 1;
	}
	printf(json ? "{\"objects\": {" : "");
	while (fscanf(f, "%63s %ld", name, &count) == 2) {
		if (json)
			printf("%s\"%s\": %ld", first ? "" : ", ", name, count);
		else
			printf("%-14s %ld\n", name, count);
		first = false;
	}
	printf(json ? "}" : "");
	fclose(f);
	return 0;
}

/* One owner line of debugfs owners, as JSON: its words are "k=v". */
static void owner_json(char *line, bool first)
{
	char *w, *save = NULL, *eq, *pid, *comm;
	bool first_obj = true;

	pid = strtok_r(line, "\n ", &save);
	comm = strtok_r(NULL, "\n ", &save);
	printf("%s{\"pid\": %s, \"command\": ", first ? "" : ", ",
	       pid ? pid : "0");
	json_str(comm ? comm : "");
	printf(", \"objects\": {");
	while ((w = strtok_r(NULL, "\n ", &save))) {
		eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(w, "qpn")) {
			printf("}, \"qpn\": [%s", eq + 1);
			first_obj = false;
			break;
		}
		printf("%s\"%s\": %s", first_obj ? "" : ", ", w, eq + 1);
		first_obj = false;
	}
	printf(w ? "]}" : "}, \"qpn\": []}");
}

/* Who owns what: a line per owner, the kernel consumers first. */
static int show_owners(void)
{
	char line[4096];
	bool first = true;
	FILE *f;

	f = fopen(OWNERS_FILE, "r");
	if (!f) {
		fprintf(stderr, "kdaplctl: %s: %s\n", OWNERS_FILE,
			strerror(errno));
		return 1;
	}
	printf(json ? ", \"owners\": [" : "\n%-7s %-16s %s\n", "PID",
	       "COMMAND", "OBJECTS (qpn: QP numbers)");
	while (fgets(line, sizeof(line), f)) {
		if (json) {
			owner_json(line, first);
		} else {
			int pid = 0, n = 0;
			char comm[64] = "";

			if (sscanf(line, "%d %63s %n", &pid, comm, &n) < 2)
				continue;
			printf("%-7d %-16s %s", pid, comm, line + n);
		}
		first = false;
	}
	printf(json ? "]}\n" : "");
	fclose(f);
	return 0;
}

static int cmd_objects(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (show_totals())
		return 1;
	return show_owners();
}

/* Is IA @name among the @argc names of @argv (all IAs if there are none)? */
static bool ia_wanted(const char *name, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return argc < 2;
}

static int no_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * The counter names of the first IA's stats/ directory, sorted; every IA
 * has the same.  Returns how many, 0 if there is no IA.
 */
static int stat_names(const struct ia *ias, int n, char names[][VAL_MAX])
{
	struct dirent **list;
	char path[512];
	int i, count;

	if (!n)
		return 0;
	snprintf(path, sizeof(path), CLASS_DIR "/%s/stats", ias[0].name);
	count = scandir(path, &list, no_dot, alphasort);
	if (count < 0)
		return 0;
	for (i = 0; i < count; i++) {
		if (i < MAX_STATS)
			snprintf(names[i], VAL_MAX, "%.200s", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return count < MAX_STATS ? count : MAX_STATS;
}

static void stat_value(const char *ia, const char *name, char *buf)
{
	char attr[VAL_MAX + 8];

	snprintf(attr, sizeof(attr), "stats/%s", name);
	read_attr(ia, attr, buf);
	if (!buf[0])
		snprintf(buf, VAL_MAX, "0");
}

static int cmd_stats(int argc, char **argv)
{
	static char names[MAX_STATS][VAL_MAX], val[VAL_MAX];
	static struct ia ias[MAX_IAS];
	int i, j, n, m, shown = 0;

	n = read_ias(ias);
	if (n < 0)
		return no_kdapl();
	/* Keep the wanted IAs only, in order. */
	for (i = 0, m = 0; i < n; i++)
		if (ia_wanted(ias[i].name, argc, argv))
			ias[m++] = ias[i];
	n = m;
	if (argc > 1 && n != argc - 1) {
		fprintf(stderr, "kdaplctl: no such IA among %s\n", CLASS_DIR);
		return 1;
	}
	m = stat_names(ias, n, names);
	if (json) {
		printf("{");
		for (i = 0; i < n; i++) {
			printf("%s", shown++ ? ", " : "");
			json_str(ias[i].name);
			printf(": {");
			for (j = 0; j < m; j++) {
				stat_value(ias[i].name, names[j], val);
				printf("%s\"%s\": %s", j ? ", " : "", names[j],
				       val);
			}
			printf("}");
		}
		printf("}\n");
		return 0;
	}
	printf("%-20s", "COUNTER");
	for (i = 0; i < n; i++)
		printf(" %14s", ias[i].name);
	printf("\n");
	for (j = 0; j < m; j++) {
		printf("%-20s", names[j]);
		for (i = 0; i < n; i++) {
			stat_value(ias[i].name, names[j], val);
			printf(" %14s", val);
		}
		printf("\n");
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "list", cmd_list, "the Interface Adapters and their state" },
	{ "dat-conf", cmd_dat_conf,
	  "dat.conf lines for the IAs; --install [FILE] or --remove [FILE]" },
	{ "objects", cmd_objects,
	  "live objects, open files, pinned pages; per owner (root)" },
	{ "stats", cmd_stats,
	  "counters of posts, completions, events and errors; [IA...]" },
};

static int show_help(void)
{
	unsigned int i;

	fputs("usage: kdaplctl [--json] COMMAND [ARG...]\n", stderr);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(stderr, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned int i;
	int a;

	/* --json may come before or after the command. */
	for (a = 1; a < argc; a++)
		if (!strcmp(argv[a], "--json")) {
			json = true;
			memmove(&argv[a], &argv[a + 1],
				(argc - a) * sizeof(*argv));
			argc--;
			a--;
		}
	if (argc < 2)
		return show_help();
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	return show_help();
}
