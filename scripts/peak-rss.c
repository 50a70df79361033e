/* Peak resident memory of a command as the kernel counts it (wait4's
 * ru_maxrss), over several runs, in KiB. A child's peak includes what it
 * shared with its parent before exec, so the parent must be small: this
 * program is (a Python or Rust harness adds its own ~10-14 MiB).
 *
 *   cc -O2 -o /tmp/peak-rss scripts/peak-rss.c
 *   /tmp/peak-rss 7 target/release/tack -p hi      (stdout to /dev/null)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s RUNS COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    int runs = atoi(argv[1]);
    for (int r = 0; r < runs; r++) {
        pid_t pid = vfork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int status;
        struct rusage usage;
        if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) {
            perror("peak-rss");
            return 1;
        }
        printf("%ld%s", usage.ru_maxrss, r + 1 < runs ? " " : "\n");
    }
    return 0;
}
