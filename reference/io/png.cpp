#include "reference/io/png.h"

#ifdef CHUNKPROOF_HAVE_RSVG
#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cmath>
#include <memory>
#endif

namespace cp::io {

#ifdef CHUNKPROOF_HAVE_RSVG

namespace {
struct GObjectUnref {
  void operator()(void* p) const { g_object_unref(p); }
};
struct SurfaceDestroy {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDestroy {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
}  // namespace

bool png_available() { return true; }

}  // namespace cp::io

// fontconfig (through librsvg's text layout) keeps its caches until exit by design; under
// LeakSanitizer (the asan preset) those are reported as leaks of every command that drew a
// picture. They are the library's, not ours: suppressed here, where the library is linked.
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }

namespace cp::io {

bool svg_to_png(const std::string& svg_path, const std::string& png_path, std::string& why, double scale) {
  GError* err = nullptr;
  std::unique_ptr<RsvgHandle, GObjectUnref> svg(rsvg_handle_new_from_file(svg_path.c_str(), &err));
  if (!svg) {
    why = "cannot read " + svg_path + (err ? std::string(": ") + err->message : std::string());
    if (err) g_error_free(err);
    return false;
  }
  gdouble w = 0, h = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(svg.get(), &w, &h) || w <= 0 || h <= 0) {
    why = svg_path + " has no pixel size (width/height)";
    return false;
  }
  const int pw = static_cast<int>(std::ceil(w * scale)), ph = static_cast<int>(std::ceil(h * scale));
  std::unique_ptr<cairo_surface_t, SurfaceDestroy> surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph));
  std::unique_ptr<cairo_t, ContextDestroy> cr(cairo_create(surface.get()));
  const RsvgRectangle viewport{0, 0, static_cast<double>(pw), static_cast<double>(ph)};
  if (!rsvg_handle_render_document(svg.get(), cr.get(), &viewport, &err)) {
    why = "cannot render " + svg_path + (err ? std::string(": ") + err->message : std::string());
    if (err) g_error_free(err);
    return false;
  }
  if (cairo_surface_write_to_png(surface.get(), png_path.c_str()) != CAIRO_STATUS_SUCCESS) {
    why = "cannot write " + png_path;
    return false;
  }
  return true;
}

#else

bool png_available() { return false; }

bool svg_to_png(const std::string&, const std::string&, std::string& why, double) {
  why = "this chunkproof was built without librsvg/cairo (Debian: librsvg2-dev)";
  return false;
}

#endif

}  // namespace cp::io
