/* fuzz-main.c: replays a corpus through LLVMFuzzerTestOneInput without
 * libFuzzer, so every fuzz target's corpus runs as an ordinary meson test.
 * Arguments are files or directories; an empty corpus is a failure (a test
 * that cannot fail is worse than none). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
        FILE *f = fopen(path, "rb");
        uint8_t *buf;
        long n;

        if (!f) {
                perror(path);
                return -1;
        }
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc(n > 0 ? (size_t)n : 1);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
                fclose(f);
                free(buf);
                return -1;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        free(buf);
        return 0;
}

int main(int argc, char **argv) {
        int count = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        perror(argv[i]);
                        return 1;
                }
                if (!S_ISDIR(st.st_mode)) {
                        if (replay_file(argv[i]) < 0)
                                return 1;
                        count++;
                        continue;
                }
                DIR *d = opendir(argv[i]);
                struct dirent *de;
                while (d && (de = readdir(d))) {
                        char p[4096];
                        if (de->d_name[0] == '.')
                                continue;
                        snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
                        if (replay_file(p) < 0)
                                return 1;
                        count++;
                }
                if (d)
                        closedir(d);
        }
        fprintf(stderr, "replayed %d inputs\n", count);
        return count > 0 ? 0 : 1;
}
