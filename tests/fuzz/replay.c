/* Plain driver for the fuzz targets: runs every file of the given corpus
 * directories through LLVMFuzzerTestOneInput(), so CI exercises the corpus
 * without libFuzzer. Fails when no input was found. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long len;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(data = malloc(len ? (size_t)len : 1)) || fread(data, 1, (size_t)len, f) != (size_t)len) {
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)len);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = 0;

	for (int i = 1; i < argc; i++) {
		struct dirent **ents;
		int k = scandir(argv[i], &ents, NULL, alphasort);

		if (k < 0) {
			if (run_file(argv[i])) {
				fprintf(stderr, "replay: cannot read %s\n", argv[i]);
				return 1;
			}
			n++;
			continue;
		}
		for (int j = 0; j < k; j++) {
			char path[4096];
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				if (run_file(path)) {
					fprintf(stderr, "replay: cannot read %s\n", path);
					return 1;
				}
				n++;
			}
			free(ents[j]);
		}
		free(ents);
	}
	printf("replayed %u input(s)\n", n);
	return n ? 0 : 1;
}
