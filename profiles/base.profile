# base: what every database or JVM host profile builds on. The knowledge
# that depends on the host (HugePages, THP, hugetext, swappiness on old
# kernels) lives in the rules; their parameters are listed by
# `hosttune show PROFILE`.

summary = "Common safe defaults for database and JVM hosts";

sysctl = {
        vm = {
                # Swap as little as possible without inviting the OOM killer;
                # rules/60-swappiness.rules uses 10 on kernels before 3.5
                # (Red Hat, "Tuning Virtual Memory"; Linux commit fe35004fbf9e).
                # Exact on purpose: neither a minimum nor a maximum (0 invites
                # the OOM killer, higher values swap more).
                swappiness = { value = 1; bound = "exact"; };
        };
};
