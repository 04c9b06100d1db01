/*
 * doctor.h - what `postmortem doctor` reads: slurm.conf (with its Include lines), the output
 * of `scontrol show config`, plugstack.conf (with its include globs) and ELF shared objects.
 * Parsers only, no judgement: doctor.c decides what is wrong.  Everything returned is
 * malloc'd and freed with the matching *_free function, which accepts a zeroed struct.
 */
#ifndef PM_DOCTOR_H
#define PM_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dc_strv {
	char **v;
	size_t n, cap;
};

/* A key=value of a configuration file (or of scontrol's output, file NULL, line 0). */
struct dc_kv {
	char *key, *val, *file;
	int line;
};

struct dc_kvs {
	struct dc_kv *v;
	size_t n, cap;
};

struct dc_slurmconf {
	struct dc_kvs kv;     /* global parameters; the last one given wins, as in Slurm */
	struct dc_strv nodes; /* NodeName= values (host lists), DEFAULT excluded */
	struct dc_strv files; /* every file read, the main one first */
};

/*
 * Read slurm.conf PATH and the files its Include lines name (relative to PATH's folder,
 * globs allowed, at most 8 deep).  Lines of node, partition and similar definitions do not
 * reach KV.  Returns 0, or -1 with ERR ("FILE: why") when PATH cannot be read; an included
 * file that cannot be read is an error too (Slurm refuses to start).
 */
int dc_slurmconf_load(const char *path, struct dc_slurmconf *sc, char *err, size_t errlen);
void dc_slurmconf_free(struct dc_slurmconf *sc);

/* The last entry named KEY (case-insensitive), or NULL. */
const struct dc_kv *dc_kv_get(const struct dc_kvs *kv, const char *key);

/* Parse `scontrol show config` output ("Key = value" lines) into KV.  0 or -1 (ENOMEM). */
int dc_scontrol_parse(const char *text, struct dc_kvs *kv);
void dc_kvs_free(struct dc_kvs *kv);

/* One plugin line of plugstack.conf: "required|optional PATH ARGS..." */
struct dc_plugin {
	char *file;
	int line;
	char *mode; /* "required" or "optional" */
	char *path; /* as written */
	struct dc_strv args;
};

struct dc_plugstack {
	struct dc_plugin *v;
	size_t n, cap;
	struct dc_strv files; /* every file read, the main one first */
	struct dc_strv dirs;  /* the folders include globs look in (a removed file changes them) */
	struct dc_strv bad;   /* "FILE:LINE: why" for lines Slurm would reject */
};

/*
 * Read plugstack.conf PATH and the files its include lines name (globs; relative to the
 * including file's folder).  Returns 0 (a missing PATH gives -1 with errno ENOENT), -1 with
 * ERR for a file that cannot be read.
 */
int dc_plugstack_load(const char *path, struct dc_plugstack *ps, char *err, size_t errlen);
void dc_plugstack_free(struct dc_plugstack *ps);

/* What an ELF file says about itself. */
struct dc_elf {
	int elfclass, data, machine, type; /* e_ident[EI_CLASS], [EI_DATA], e_machine, e_type */
	int host_machine;		   /* e_machine of this program */
	bool same_abi;			   /* class, byte order and machine of this program */
	bool has_sections;		   /* a section table: the lists below are known */
	bool bind_now;			   /* DF_BIND_NOW / DF_1_NOW: symbols bound at load */
	struct dc_strv defined;		   /* exported (global or weak, defined) dynamic symbols */
	struct dc_strv undefined;	   /* dynamic symbols it needs, without version */
	struct dc_strv needed;		   /* DT_NEEDED libraries */
	char plugin_name[64], plugin_type[32]; /* the SPANK identity strings, "" unknown */
	long long plugin_version;	       /* SLURM_VERSION_NUMBER it was built with, -1 */
	long long spank_plugin_version;	       /* -1 unknown */
};

/*
 * Read the ELF file PATH (at most 256 MiB) defensively: every offset and size is checked.
 * Returns 0, or -1 with ERR saying why it is not an ELF file this program can read.
 */
int dc_elf_read(const char *path, struct dc_elf *e, char *err, size_t errlen);
void dc_elf_free(struct dc_elf *e);
bool dc_strv_has(const struct dc_strv *s, const char *x);

#endif
