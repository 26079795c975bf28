#include "config.h"

#include <signal.h>
#include <string.h>

#include "interrupt.h"

static volatile sig_atomic_t received;

static void on_signal(int sig) {
        if (!received)
                received = sig;
}

void ht_interrupt_defer(void) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
                struct sigaction old;
                /* one ignored when we started stays so: nohup's SIGHUP,
                 * a background job's SIGINT (the caller's choice) */
                if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
                        continue;
                (void)sigaction(sigs[i], &sa, NULL);
        }
}

int ht_interrupted(void) {
        return received;
}

const char *ht_interrupt_name(int sig) {
        /* sigabbrev_np() came with glibc 2.32; EL8 has 2.28 */
        switch (sig) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        default: return "a signal";
        }
}
