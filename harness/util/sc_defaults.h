/* sc_defaults.h - the defaults a user meets in more than one command, in one place. */
#ifndef SC_DEFAULTS_H
#define SC_DEFAULTS_H

/* Seconds any wait on other ranks may make no progress before the run ends with exit code 3
 * (--timeout; the NCCL communicator's bound too). Long enough for a training step or a 1 GB
 * all-reduce over a slow link; short enough that a hung job ends within minutes. */
#define SC_DEFAULT_TIMEOUT_S 300

/* A default as text, for the help tables: the same number, written once. */
#define SC_DEFAULT_TEXT(x)      SC__DEFAULT_TEXT(x)
#define SC__DEFAULT_TEXT(x)     #x
#define SC_DEFAULT_TIMEOUT_TEXT SC_DEFAULT_TEXT(SC_DEFAULT_TIMEOUT_S)

#endif
