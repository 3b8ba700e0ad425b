#ifndef TK_CINOTIFY_SHIM_H
#define TK_CINOTIFY_SHIM_H
#include <sys/inotify.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#endif
