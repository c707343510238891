import CCore

/// A rectangle in normalized image coordinates ([0, 1], origin top-left, unmirrored).
package struct NormalizedRect: Sendable, Equatable {
    package var x: Float, y: Float, width: Float, height: Float
    package init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// From an [x, y, width, height] box, as truth files and JSON carry them; nil for another shape.
    package init?(box: [Double]) {
        guard box.count == 4 else { return nil }
        self.init(x: Float(box[0]), y: Float(box[1]), width: Float(box[2]), height: Float(box[3]))
    }
}

/// Inclusive Y'CbCr bounds of the skin mask (8-bit values).
package struct SkinBounds: Sendable, Equatable {
    package var y: ClosedRange<UInt8>, cb: ClosedRange<UInt8>, cr: ClosedRange<UInt8>

    package init(y: ClosedRange<UInt8>, cb: ClosedRange<UInt8>, cr: ClosedRange<UInt8>) {
        self.y = y; self.cb = cb; self.cr = cr
    }

    /// The core's default skin box (Chai & Ngan Cb/Cr, near-black and clipped luma excluded).
    package static var standard: SkinBounds { SkinBounds(ccore_skin_bounds_default()) }
    /// Every pixel counts: plain rectangle means.
    package static var everything: SkinBounds { SkinBounds(ccore_skin_bounds_all()) }

    init(_ c: ccore_skin_bounds) {
        y = c.y_min...c.y_max; cb = c.cb_min...c.cb_max; cr = c.cr_min...c.cr_max
    }

    var cValue: ccore_skin_bounds {
        ccore_skin_bounds(y_min: y.lowerBound, y_max: y.upperBound, cb_min: cb.lowerBound, cb_max: cb.upperBound,
                          cr_min: cr.lowerBound, cr_max: cr.upperBound)
    }
}

/// The regions the capture thread measures, published through the core's atomic slot.
package struct RegionSet: Sendable, Equatable {
    package var rects: [NormalizedRect]
    package var skin: SkinBounds
    package var generation: UInt32

    package init(rects: [NormalizedRect], skin: SkinBounds = .standard, generation: UInt32 = 1) {
        self.rects = rects; self.skin = skin; self.generation = generation
    }

    /// The core's form; more regions than the core measures is an error.
    func cValue() throws(CoreError) -> ccore_roi_set {
        guard rects.count <= Int(CCORE_MAX_ROIS) else {
            throw CoreError(code: -22, message: "at most \(CCORE_MAX_ROIS) regions, got \(rects.count)")
        }
        var set = ccore_roi_set()
        set.count = UInt32(rects.count)
        set.generation = generation
        set.skin = skin.cValue
        withUnsafeMutableBytes(of: &set.rects) { raw in
            let slots = raw.bindMemory(to: ccore_rect.self)
            for (i, r) in rects.enumerated() { slots[i] = ccore_rect(x: r.x, y: r.y, width: r.width, height: r.height) }
        }
        return set
    }

    /// Forehead, left and right cheek of a face centred in the frame: the guide
    /// oval's regions, used until face tracking places them.
    package static var centeredFace: RegionSet {
        RegionSet(rects: [
            NormalizedRect(x: 0.42, y: 0.22, width: 0.16, height: 0.08),
            NormalizedRect(x: 0.36, y: 0.46, width: 0.08, height: 0.10),
            NormalizedRect(x: 0.56, y: 0.46, width: 0.08, height: 0.10),
        ])
    }
}

/// Mean colour of one region's skin pixels in one frame.
package struct RegionStats: Sendable, Equatable {
    package var red: Float, green: Float, blue: Float
    /// Share of the region's pixels that passed the skin mask (0-1).
    package var skinFraction: Float
    package var pixelCount: UInt32
}

/// What the capture thread reports for one frame.
package struct FrameSample: Sendable, Equatable {
    package struct Flags: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let gap = Flags(rawValue: UInt32(CCORE_SAMPLE_GAP))
        package static let controlsLocked = Flags(rawValue: UInt32(CCORE_SAMPLE_CONTROLS_LOCKED))
        package static let thumbnail = Flags(rawValue: UInt32(CCORE_SAMPLE_THUMBNAIL))
        package static let noRegions = Flags(rawValue: UInt32(CCORE_SAMPLE_NO_ROI))
    }

    package var sequence: UInt64
    /// CLOCK_MONOTONIC capture time, nanoseconds.
    package var timestampNanoseconds: Int64
    /// CLOCK_MONOTONIC time the core finished the sample, nanoseconds.
    package var processedNanoseconds: Int64
    package var flags: Flags
    package var droppedBefore: UInt32
    package var errorsBefore: UInt32
    package var overflowBefore: UInt32
    package var regionGeneration: UInt32
    package var meanLuma: Float
    /// Mean luma of rows 0.3-0.5, alike on every format (the light share's).
    package var bandLuma: Float
    package var decodeScale: UInt32
    /// Stage timing (while switched on, else 0): when the capture thread took
    /// the frame in (CLOCK_MONOTONIC ns) and the nanoseconds of its per-frame work.
    package var dequeuedNanoseconds: Int64
    package var decodeNanoseconds: UInt32
    package var kernelsNanoseconds: UInt32
    package var thumbnailNanoseconds: UInt32
    package var regions: [RegionStats]

    init(_ s: ccore_frame_sample) {
        sequence = s.sequence
        timestampNanoseconds = s.timestamp_ns
        processedNanoseconds = s.processed_ns
        flags = Flags(rawValue: s.flags)
        droppedBefore = s.dropped_before
        errorsBefore = s.errors_before
        overflowBefore = s.overflow_before
        regionGeneration = s.roi_generation
        meanLuma = s.mean_luma
        bandLuma = s.band_luma
        decodeScale = s.decode_scale
        dequeuedNanoseconds = s.dequeued_ns
        decodeNanoseconds = s.decode_ns
        kernelsNanoseconds = s.kernels_ns
        thumbnailNanoseconds = s.thumbnail_ns
        let count = Int(min(s.roi_count, UInt32(CCORE_MAX_ROIS)))
        regions = withUnsafeBytes(of: s.rois) { raw in
            raw.bindMemory(to: ccore_roi_stats.self).prefix(count).map {
                RegionStats(red: $0.r, green: $0.g, blue: $0.b, skinFraction: $0.skin_fraction,
                            pixelCount: $0.pixel_count)
            }
        }
    }
}
