#ifndef TK_CSQLITE_SHIM_H
#define TK_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type tk_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/// Turns off SQLite's memory statistics (sqlite3_config is variadic, which Swift cannot call).
/// They take one global mutex on every allocation, which serialises two threads searching at once.
/// Only valid before SQLite is initialised (before the first open); returns SQLITE_MISUSE after.
static inline int tk_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
/// Leaves the WAL as it is when a connection closes, without a checkpoint (sqlite3_db_config is
/// variadic): a command that wrote a few pages does not pay two fsyncs at exit (see TKCore's
/// `AppDatabase.keepWriteAheadLog`). Returns SQLITE_OK or an error code.
static inline int tk_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
#endif
