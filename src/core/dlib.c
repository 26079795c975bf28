#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>

#include "dlib.h"

/* A symbol of h, clearing *ok when it is missing. */
static void *sym(void *h, const char *name, bool *ok) {
        void *p = dlsym(h, name);
        if (!p)
                *ok = false;
        return p;
}

#define SYM(h, lib, field, name, ok) ((lib).field = (__typeof__((lib).field))sym(h, name, ok))

const ht_audit_fns *ht_audit_lib(void) {
        static ht_audit_fns lib;
        static int state; /* 0 not tried, 1 loaded, -1 unavailable */
        if (state != 0)
                return state > 0 ? &lib : NULL;
        state = -1;
        void *h = dlopen("libaudit.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return NULL;
        bool ok = true;
        SYM(h, lib, open, "audit_open", &ok);
        SYM(h, lib, close, "audit_close", &ok);
        SYM(h, lib, log_user_message, "audit_log_user_message", &ok);
        SYM(h, lib, encode_nv_string, "audit_encode_nv_string", &ok);
        if (!ok) {
                dlclose(h);
                return NULL;
        }
        /* stays loaded for the life of the process */
        state = 1;
        return &lib;
}

const ht_systemd_fns *ht_systemd_lib(void) {
        static ht_systemd_fns lib;
        static int state;
        if (state != 0)
                return state > 0 ? &lib : NULL;
        state = -1;
        void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return NULL;
        bool ok = true;
        SYM(h, lib, journal_send, "sd_journal_send", &ok);
        SYM(h, lib, bus_open_system, "sd_bus_open_system", &ok);
        SYM(h, lib, bus_call_method, "sd_bus_call_method", &ok);
        SYM(h, lib, bus_error_free, "sd_bus_error_free", &ok);
        SYM(h, lib, bus_unref, "sd_bus_unref", &ok);
        if (!ok) {
                dlclose(h);
                return NULL;
        }
        state = 1;
        return &lib;
}
