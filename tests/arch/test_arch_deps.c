// The dependency direction of docs/architecture.md, checked on the sources: every #include of
// another area's header is one the table allows, every area of src/ is in the table, and each
// external library is included by its one file only. The table and the list are read from the
// document itself (its "deps" and "externals" blocks), so the document and the code cannot drift.
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { MAX_AREAS = 32, MAX_EXT = 16, NAME = 64, LINE = 512 };

typedef struct rules {
  int narea;
  char area[MAX_AREAS][NAME];
  char allowed[MAX_AREAS][LINE];  // the areas area[i] may include, space separated
  int next;
  char ext[MAX_EXT][NAME];       // an external header
  char ext_file[MAX_EXT][LINE];  // the one file that may include it
} rules;

static int find_area(const rules* r, const char* a) {
  for (int i = 0; i < r->narea; i++) {
    if (strcmp(r->area[i], a) == 0) return i;
  }
  return -1;
}

// Reads the ```deps and ```externals blocks of docs/architecture.md.
static void read_rules(const char* doc, rules* r) {
  FILE* f = fopen(doc, "r");
  ck_assert_msg(f != NULL, "cannot open %s", doc);
  memset(r, 0, sizeof *r);
  char line[LINE];
  int block = 0;  // 1 deps, 2 externals
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (strncmp(line, "```", 3) == 0) {
      block = strcmp(line, "```deps") == 0 ? 1 : strcmp(line, "```externals") == 0 ? 2 : 0;
      continue;
    }
    if (!block || !line[0]) continue;
    char* colon = strchr(line, ':');
    ck_assert_msg(colon != NULL, "%s: a line without ':' in a block: '%s'", doc, line);
    *colon = 0;
    const char* rest = colon + 1;
    while (*rest == ' ') rest++;
    if (block == 1) {
      ck_assert_int_lt(r->narea, MAX_AREAS);
      snprintf(r->area[r->narea], NAME, "%.63s", line);
      snprintf(r->allowed[r->narea], LINE, " %s ", rest);
      r->narea++;
    } else {
      ck_assert_int_lt(r->next, MAX_EXT);
      snprintf(r->ext[r->next], NAME, "%.63s", line);
      snprintf(r->ext_file[r->next], LINE, "%s", rest);
      r->next++;
    }
  }
  fclose(f);
  ck_assert_msg(r->narea > 0 && r->next > 0, "%s: no deps or externals block", doc);
}

// Checks the #include lines of src/<area>/<file> against the rules; appends violations to msg.
static void check_file(const rules* r, const char* src, const char* area, const char* file,
                       char* msg, size_t size, int* nbad, int* ext_seen) {
  char path[LINE];
  snprintf(path, sizeof path, "%s/%s/%s", src, area, file);
  FILE* f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  const int self = find_area(r, area);
  char line[LINE];
  while (fgets(line, sizeof line, f)) {
    const char* p = line;
    while (*p == ' ') p++;
    if (strncmp(p, "#include", 8) != 0) continue;
    p += 8;
    while (*p == ' ') p++;
    char target[NAME] = "";
    if (*p == '"') {
      const char* slash = strchr(p + 1, '/');
      if (!slash) continue;
      snprintf(target, sizeof target, "%.*s", (int)(slash - p - 1), p + 1);
      if (strcmp(target, "hydyn") == 0 || strcmp(target, area) == 0) continue;
      char word[NAME + 2];
      snprintf(word, sizeof word, " %s ", target);
      if (self < 0 || !strstr(r->allowed[self], word)) {
        const size_t len = strlen(msg);
        snprintf(msg + len, size - len, "\n  src/%s/%s includes %s/, which area %s may not", area,
                 file, target, area);
        ++*nbad;
      }
    } else if (*p == '<') {
      const char* end = strchr(p, '>');
      if (!end) continue;
      snprintf(target, sizeof target, "%.*s", (int)(end - p - 1), p + 1);
      for (int e = 0; e < r->next; e++) {
        if (strcmp(target, r->ext[e]) != 0) continue;
        char rel[LINE];
        snprintf(rel, sizeof rel, "src/%s/%s", area, file);
        if (strcmp(rel, r->ext_file[e]) != 0) {
          const size_t len = strlen(msg);
          snprintf(msg + len, size - len, "\n  %s includes <%s>, which only %s may", rel, target,
                   r->ext_file[e]);
          ++*nbad;
        } else {
          ext_seen[e] = 1;
        }
      }
    }
  }
  fclose(f);
}

START_TEST(includes_follow_the_documented_direction) {
  rules r;
  read_rules(HY_SOURCE_DIR "/docs/architecture.md", &r);
  const char* src = HY_SOURCE_DIR "/src";
  DIR* top = opendir(src);
  ck_assert_ptr_nonnull(top);
  static char msg[16384];
  msg[0] = 0;
  int nbad = 0, nfiles = 0, nareas = 0;
  int ext_seen[MAX_EXT] = {0};
  struct dirent* a;
  while ((a = readdir(top)) != NULL) {
    if (a->d_name[0] == '.') continue;
    char dir[LINE];
    snprintf(dir, sizeof dir, "%s/%s", src, a->d_name);
    DIR* sub = opendir(dir);
    if (!sub) continue;
    nareas++;
    ck_assert_msg(find_area(&r, a->d_name) >= 0,
                  "area src/%s is not in the deps table of docs/architecture.md", a->d_name);
    struct dirent* e;
    while ((e = readdir(sub)) != NULL) {
      const size_t n = strlen(e->d_name);
      if (n < 3 || e->d_name[0] == '.') continue;
      if (strcmp(e->d_name + n - 2, ".c") != 0 && strcmp(e->d_name + n - 2, ".h") != 0) continue;
      check_file(&r, src, a->d_name, e->d_name, msg, sizeof msg, &nbad, ext_seen);
      nfiles++;
    }
    closedir(sub);
  }
  closedir(top);
  ck_assert_int_ge(nareas, 9);
  ck_assert_int_ge(nfiles, 50);
  ck_assert_msg(nbad == 0, "%d include(s) against docs/architecture.md:%s", nbad, msg);
  for (int e = 0; e < r.next; e++) {
    ck_assert_msg(ext_seen[e], "%s does not include <%s> (docs/architecture.md)", r.ext_file[e],
                  r.ext[e]);
  }
}
END_TEST

// The reader sees a violation when there is one: a rules table without hyd for form rejects the
// sources as they are.
START_TEST(a_violation_is_seen) {
  rules r;
  read_rules(HY_SOURCE_DIR "/docs/architecture.md", &r);
  const int form = find_area(&r, "form");
  ck_assert_int_ge(form, 0);
  snprintf(r.allowed[form], LINE, " core model mech ");  // hyd left out
  static char msg[4096];
  msg[0] = 0;
  int nbad = 0, ext_seen[MAX_EXT] = {0};
  check_file(&r, HY_SOURCE_DIR "/src", "form", "form.h", msg, sizeof msg, &nbad, ext_seen);
  ck_assert_int_eq(nbad, 1);
  ck_assert_ptr_nonnull(strstr(msg, "src/form/form.h includes hyd/"));
  // and an external header outside its file
  snprintf(r.ext_file[0], LINE, "src/io/io_yaml.c");
  nbad = 0;
  check_file(&r, HY_SOURCE_DIR "/src", "io", "io_yaml_tree.c", msg, sizeof msg, &nbad, ext_seen);
  ck_assert_int_eq(nbad, 1);
}
END_TEST

Suite* arch_deps_suite(void) {
  Suite* s = suite_create("arch_deps");
  TCase* tc = tcase_create("deps");
  tcase_add_test(tc, includes_follow_the_documented_direction);
  tcase_add_test(tc, a_violation_is_seen);
  suite_add_tcase(s, tc);
  return s;
}
