// PNG pictures through packaged libraries (issue 24): an SVG this tool drew is rendered by
// librsvg onto a Cairo image surface and written with Cairo's PNG writer — no external program,
// no hand-written rasteriser. Built where pkg-config finds librsvg-2.0 and cairo (Debian:
// librsvg2-dev); elsewhere png_available() is false and svg_to_png says why.
#pragma once

#include <string>

namespace cp::io {

bool png_available();

// Renders the SVG file at `svg_path` to `png_path` at `scale` (1 = the SVG's own pixel size).
// False with `why` set when the library is missing or the file cannot be read or written.
bool svg_to_png(const std::string& svg_path, const std::string& png_path, std::string& why, double scale = 1.0);

}  // namespace cp::io
