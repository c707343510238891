/// The limits the quality monitor judges by, each with the physical reason for
/// it. None is fitted to a clip; the generated quality scenarios sit well past
/// them and the clean ones well inside.
enum QualityThresholds {
    // Light (raw 8-bit luma of the face on the thumbnail).
    /// Below ~50 a 0.3% pulse is 0.15 of a quantisation step per pixel and the
    /// sensor's gain-driven noise dominates; the skin mask's floor (Y 40) is near.
    static let tooDarkLuma = 50.0
    /// A quarter of the face at the clip level: those pixels carry no pulse at
    /// all, and the rest sit in the sensor's compressed highlights.
    static let tooBrightClippedFraction = 0.25
    /// One cheek 1.6x brighter than the other: the side lights see different
    /// spectra and depths, so the regions' pulses stop agreeing (a face lit from
    /// the front differs by ~1.1-1.2x from its own shape).
    static let unevenSideRatio = 1.6
    /// Frame-to-frame luma change the scene cannot make by itself: the whole
    /// frame's mean second difference beyond 1% of its level (sensor noise of a
    /// whole-frame mean is ~0.01%; head and hand motion change it slowly) ...
    static let flickerStep = 0.01
    /// ... in at least 30% of the last second's frames (a light switched on or a
    /// cloud gives one or two such frames; aliased mains flicker gives most).
    static let flickerShare = 0.30

    // Framing (normalized to the frame).
    /// The face centre more than 20% of the frame from its middle: the regions
    /// near the edge leave the picture with small head moves, and lens vignetting
    /// and distortion grow.
    static let centreOffset: Float = 0.20
    /// Face heights are the detector's box, which stops short of the hairline
    /// and the chin: about 0.85-0.9 of the whole face.
    /// A box under 18% of the frame height (the face ~20%): at 640x480 a cheek
    /// region is then ~15x15 pixels, too few to average the sensor noise below
    /// the pulse. (Under ~10% the detector's 24-pixel window on a 320-wide
    /// thumbnail no longer finds the face at all: then it is faceNotDetected.)
    static let tooFarHeight: Float = 0.18
    /// A box over 60% of the height (the face ~70%): the forehead and chin are at
    /// the edge and a small move takes regions out of the frame.
    static let tooCloseHeight: Float = 0.60
    /// Face box width over height (in pixels) under 0.6: a frontal box is ~0.8, so
    /// the head is turned by ~40 degrees or more and one cheek is foreshortened.
    static let turnedAwayAspect = 0.6
    /// A second face counts when it is at least 40% of the main one's height
    /// (someone close enough to be in the light and the regions' neighbourhood).
    static let secondFaceHeight: Float = 0.40

    // Motion.
    /// The face moving (against the background) more than 0.3 face heights per
    /// second: the regions then cross skin of different thickness and shading
    /// several times a second, which swamps a 0.3% pulse.
    static let headSpeed = 0.30
    /// The background moving more than 3% of the frame height per second:
    /// a steady tripod or table moves ~0; a hand-held phone or a knocked board a
    /// few percent, and its jolts move the regions across the face.
    static let cameraSpeed = 0.03

    // Occlusion (per-frame skin fraction of the three regions).
    /// A region under 35% skin while another keeps 70%: something not skin-
    /// coloured covers part of the face (uniform loss on all regions is light,
    /// not occlusion).
    static let occludedSkin: Float = 0.35, visibleSkin: Float = 0.70
    /// Skin is judged only while under 5% of the face is at the clip level: beyond
    /// that the brightest region loses its skin pixels to the mask's luma ceiling,
    /// which would read as an occluder.
    static let occlusionClippedFraction = 0.05

    // System.
    /// Under 12 frames per second (sustained), a 3.5 Hz heart-rate band edge is
    /// near Nyquist and beat timing for HRV loses its resolution.
    static let minimumFrameRate = 12.0
}
