//! Board pictures as PNG (`hexveil replay FILE --svg STEP --png OUT`):
//! an SVG of [`crate::svg`] rendered by resvg, its text set in DejaVu
//! Sans, which this crate carries (the `dejavu` crate): no system font is
//! looked up, so a picture renders alike on every machine, labels
//! included. Built with the `png` feature.

use resvg::{tiny_skia, usvg};

/// The family every text of a picture is set in.
pub const FONT_FAMILY: &str = "DejaVu Sans";

/// Largest picture rendered, in pixels a side: a bound on memory.
pub const MAX_SIDE: u32 = 16_384;

/// Renders `svg` as PNG bytes, `scale` pixels per SVG pixel (1.0 keeps the
/// picture's own size). `Err` says what is wrong: SVG that does not parse,
/// a scale that is not a positive finite number, or a picture larger than
/// [`MAX_SIDE`] pixels a side once scaled.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("the scale must be a positive number, not {scale}"));
    }
    let mut options = usvg::Options {
        font_family: FONT_FAMILY.into(),
        ..usvg::Options::default()
    };
    let fonts = options.fontdb_mut();
    fonts.load_font_data(dejavu::sans::regular().to_vec());
    fonts.load_font_data(dejavu::sans::bold().to_vec());
    fonts.set_sans_serif_family(FONT_FAMILY);
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("the picture is not SVG resvg can read: {e}"))?;
    let size = tree.size();
    let (w, h) = (size.width() * scale, size.height() * scale);
    if !(w >= 1.0 && h >= 1.0 && w <= MAX_SIDE as f32 && h <= MAX_SIDE as f32) {
        return Err(format!(
            "a picture of {w:.0} x {h:.0} pixels: each side must be 1 to {MAX_SIDE}"
        ));
    }
    let mut pixmap = tiny_skia::Pixmap::new(w.ceil() as u32, h.ceil() as u32)
        .ok_or_else(|| format!("cannot hold a picture of {w:.0} x {h:.0} pixels"))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode the PNG: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // A labelled picture renders: the PNG decodes to the SVG's size, its
    // pixels vary, and the label's text is drawn (with the bundled font,
    // the text's box holds dark pixels; without a font it would not).
    #[test]
    fn a_picture_with_a_label_renders_with_the_bundled_font() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"40\" \
                   font-family=\"sans-serif\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\
                   <text x=\"4\" y=\"28\" font-size=\"24\" fill=\"#000\">3E4</text></svg>";
        let png = svg_to_png(svg, 2.0).unwrap();
        let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (240, 80));
        let dark = pixmap
            .pixels()
            .iter()
            .filter(|p| p.red() < 100 && p.alpha() > 200)
            .count();
        assert!(dark > 200, "the label is drawn: {dark} dark pixels");
        assert!(svg_to_png("<svg", 1.0).unwrap_err().contains("not SVG"));
        assert!(svg_to_png(svg, 0.0).unwrap_err().contains("positive"));
        assert!(svg_to_png(svg, 1000.0).unwrap_err().contains("each side"));
    }
}
