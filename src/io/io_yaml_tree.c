// libyaml -> node tree: the only file that includes <yaml.h>.
//
// libyaml's event stream is turned into a small tree in which every node keeps its start mark,
// so the loader can look keys up in any order and still report an error at the line and column
// of the offending node. Aliases are rejected and nesting is capped, so no input can make the
// tree cyclic or the recursion over it deep. All memory goes through hy_malloc/hy_free, so the
// allocator hook sees (and tests can count) every block.
#include <string.h>
#include <yaml.h>

#include "core/core.h"
#include "io/io_yaml.h"

// The format needs seven levels (top, hydraulics, circuits, circuit, cylinders, cylinder,
// end_damper; or top, list, element, inertia form, rod); anything much deeper
// is not a model, and the cap keeps the recursive walk and free bounded.
#define MAX_DEPTH 32

//----- nodes ---------------------------------------------------------------------------------

void hy_io_node_free(hy_io_node* n) {
  if (!n) return;
  for (int i = 0; i < n->nkid; i++) hy_io_node_free(n->kid[i]);
  hy_free(n->kid);
  hy_free(n->text);
  hy_free(n);
}

static int clamp_int(size_t v) { return v > 0x7fffffff ? 0x7fffffff : (int)v; }

static hy_io_node* node_new(hy_io_node_kind kind, const yaml_mark_t* mark) {
  hy_io_node* n = hy_calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->line = clamp_int(mark->line) + 1;
  n->col = clamp_int(mark->column) + 1;
  return n;
}

static hy_status node_append(hy_io_node* parent, hy_io_node* child) {
  if (parent->nkid == parent->cap) {
    int cap = parent->cap ? 2 * parent->cap : 8;
    hy_io_node** kid = hy_malloc((size_t)cap * sizeof *kid);
    if (!kid) return HY_ERR_NOMEM;
    if (parent->nkid) memcpy(kid, parent->kid, (size_t)parent->nkid * sizeof *kid);
    hy_free(parent->kid);
    parent->kid = kid;
    parent->cap = cap;
  }
  parent->kid[parent->nkid++] = child;
  return HY_OK;
}

// YAML 1.1 null: an empty plain scalar or one of the null words.
int hy_io_is_null(const hy_io_node* n) {
  if (!n) return 1;
  if (n->kind != HY_IO_SCALAR || !n->plain) return 0;
  return n->len == 0 || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
         strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0;
}

//----- libyaml -> node tree ------------------------------------------------------------------

// 1-based line and column (in characters) of byte `offset` of text.
static void offset_to_mark(const char* text, size_t size, size_t offset, int* line, int* col) {
  size_t end = offset < size ? offset : size;
  int l = 1, c = 1;
  for (size_t i = 0; i < end; i++) {
    if (text[i] == '\n') {
      l++, c = 1;
    } else if (((unsigned char)text[i] & 0xc0) != 0x80) {
      c++;  // UTF-8 continuation bytes do not start a new character
    }
  }
  *line = l;
  *col = c;
}

static hy_status parse_error(hy_io_loader* ld, const yaml_parser_t* p, const char* text,
                             size_t size) {
  if (p->error == YAML_MEMORY_ERROR) {
    return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
  }
  const char* problem = p->problem ? p->problem : "syntax error";
  int line, col;
  if (p->error == YAML_READER_ERROR) {
    // Reader errors (bad encoding, control characters) carry a byte offset, not a mark.
    offset_to_mark(text, size, p->problem_offset, &line, &col);
    if (p->problem_value >= 0) {
      return hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s (byte 0x%02x)", problem,
                            (unsigned)p->problem_value & 0xffu);
    }
    return hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s", problem);
  }
  line = clamp_int(p->problem_mark.line) + 1;
  col = clamp_int(p->problem_mark.column) + 1;
  if (p->problem_mark.index >= size) {
    // At the end of the input libyaml counts a virtual line break after the last line; the
    // real end of the text is where a user looks for a truncated file.
    offset_to_mark(text, size, size, &line, &col);
  }
  if (p->context) {
    return hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s (%s at line %d, column %d)",
                          problem, p->context, clamp_int(p->context_mark.line) + 1,
                          clamp_int(p->context_mark.column) + 1);
  }
  // The commonest slip in a hand-written model: a key indented deeper than its siblings.
  const char* hint = strstr(problem, "mapping values are not allowed")
                         ? " (is this line indented deeper than the key above it?)"
                         : "";
  return hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s%s", problem, hint);
}

// Builds the node tree of the single document in text. *root is NULL for an empty stream.
hy_status hy_io_build_tree(hy_io_loader* ld, const char* text, size_t size, hy_io_node** root_out) {
  yaml_parser_t p;
  *root_out = NULL;
  if (!yaml_parser_initialize(&p)) {
    return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory creating the YAML parser");
  }
  yaml_parser_set_input_string(&p, (const unsigned char*)text, size);
  hy_io_node* root = NULL;
  hy_io_node* stack[MAX_DEPTH];
  int depth = 0, ndoc = 0, done = 0;
  hy_status st = HY_OK;
  while (!done && st == HY_OK) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p, &ev)) {
      st = parse_error(ld, &p, text, size);
      break;
    }
    const yaml_mark_t* mark = &ev.start_mark;
    hy_io_node* nn = NULL;
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = 1;
        break;
      case YAML_DOCUMENT_START_EVENT:
        if (++ndoc > 1) {
          st = hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, clamp_int(mark->line) + 1,
                              clamp_int(mark->column) + 1,
                              "a model file holds one YAML document; a second one starts here");
        }
        break;
      case YAML_ALIAS_EVENT:
        st = hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, clamp_int(mark->line) + 1,
                            clamp_int(mark->column) + 1,
                            "aliases ('*%s') are not supported in model files; write the value out",
                            ev.data.alias.anchor ? (const char*)ev.data.alias.anchor : "");
        break;
      case YAML_SCALAR_EVENT:
        nn = node_new(HY_IO_SCALAR, mark);
        if (nn) {
          nn->len = ev.data.scalar.length;
          nn->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
          nn->text = hy_malloc(nn->len + 1);
          if (nn->text) {
            if (nn->len) memcpy(nn->text, ev.data.scalar.value, nn->len);
            nn->text[nn->len] = 0;
          } else {
            hy_io_node_free(nn);
            nn = NULL;
          }
        }
        if (!nn) st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
        break;
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT:
        if (depth == MAX_DEPTH) {
          st = hy_io_fail_src(ld, HY_ERR_PARSE, ld->path, clamp_int(mark->line) + 1,
                              clamp_int(mark->column) + 1, "nesting deeper than %d levels",
                              MAX_DEPTH);
          break;
        }
        nn = node_new(ev.type == YAML_SEQUENCE_START_EVENT ? HY_IO_SEQ : HY_IO_MAP, mark);
        if (!nn) st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (depth > 0) depth--;
        break;
      default:
        break;
    }
    if (nn) {
      // Attach first, so the tree owns the node before it can become an open container.
      if (depth == 0) {
        root = nn;
      } else if (node_append(stack[depth - 1], nn) != HY_OK) {
        hy_io_node_free(nn);
        st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
        nn = NULL;
      }
      if (nn && nn->kind != HY_IO_SCALAR) stack[depth++] = nn;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&p);
  if (st != HY_OK) {
    hy_io_node_free(root);
    return st;
  }
  *root_out = root;
  return HY_OK;
}
