/* fst-signals: lists every signal in an FST waveform, one full path a line
 * (scope.scope.name, with [msb:lsb] when Verilator put a range in the name),
 * so scripts can check a GTKWave layout against a trace. It reads the file
 * with GTKWave's own FST reader, which Verilator ships.
 *   fst-signals FILE.fst */
#include <stdio.h>
#include <string.h>

#include "fstapi.h"

int main(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        int asked = argc == 2; /* --help or -h: asked for, not a mistake */
        fputs("usage: fst-signals FILE.fst\n", asked ? stdout : stderr);
        return asked ? 0 : 2;
    }
    void *fst = fstReaderOpen(argv[1]);
    if (!fst) {
        fprintf(stderr, "fst-signals: cannot read %s as FST\n", argv[1]);
        return 1;
    }
    char path[4096] = "";
    size_t depth_len[256];
    unsigned depth = 0;
    struct fstHier *h;
    while ((h = fstReaderIterateHier(fst))) {
        switch (h->htyp) {
        case FST_HT_SCOPE: {
            size_t len = strlen(path);
            if (depth < 256)
                depth_len[depth] = len;
            depth++;
            snprintf(path + len, sizeof path - len, "%s%s", len ? "." : "", h->u.scope.name);
            break;
        }
        case FST_HT_UPSCOPE:
            if (depth > 0 && --depth < 256)
                path[depth_len[depth]] = 0;
            break;
        case FST_HT_VAR:
            printf("%s.%s\n", path, h->u.var.name);
            break;
        default:
            break;
        }
    }
    fstReaderClose(fst);
    return 0;
}
