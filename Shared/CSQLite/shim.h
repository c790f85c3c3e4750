// libsqlite3 (Debian: libsqlite3-dev), for services that keep durable state.
#include <sqlite3.h>
