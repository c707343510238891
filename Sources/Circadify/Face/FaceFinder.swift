/// Decides where the face detector looks on each thumbnail, so a tracked face
/// costs a fraction of a full search.
///
/// A full cascade pass over a 320-pixel thumbnail is the scan's largest cost
/// (~4.5 ms here, far more on a board core). While a face is tracked, its next
/// position is near its last one and its size close to its last size, so the
/// detector searches a window around the tracked box (`margin` face sizes on
/// each side) at only the scales near its size. The whole frame is still
/// searched about once a second — for faces entering the picture, which the
/// tracker and the quality monitor (`multipleFaces`) must see — and at once
/// whenever the window comes up empty (the face moved fast, turned, left),
/// unless the face is held (below).
/// That once-a-second search is skipped while nothing outside the window has
/// changed since the last one (`BlockMeans`): a face cannot come in without
/// changing the picture where it comes in, so the faces found there last time
/// are still the faces there. A still scene is searched whole at least every
/// `quietScanInterval` all the same.
/// The windowed search itself is skipped while the window's own picture is
/// unchanged since the last one (the same `BlockMeans` test, inside the
/// window, with no shift allowed): the face is then where that
/// search found it, and the result says so (`reused`) so that the tracker only
/// confirms the face instead of counting the same detection twice. A face that
/// moves, turns or leaves changes its blocks and is searched for at once; an
/// unchanged window is searched again after `windowRefreshInterval`.
/// A face filling most of the frame leaves no window: the whole frame is its
/// window, its search's faces reused the same way while they hold the tracked one.
/// With no face tracked every thumbnail is searched whole, but once none has
/// been found for a while an unchanged picture is searched less often
/// (`emptyPatience`).
/// (The tracked face it is given is held through the detector's wobble by the
/// tracker, `Track.face`: a window that moved a pixel at every call would void
/// the reuse.)
/// When the detector misses the tracked face (the window comes up empty, and
/// so does the whole frame when its search is due), the face is held where it
/// was while the picture in its box is still the one it was last found in up
/// to a gain and an offset (the block means correlate, `holdCorrelation`): a
/// camera stepping its gain, a flickering light or heavy compression can put a
/// face the cascade finds only now and then, while it sat still the whole time.
/// A face that moves by more than a few percent of its size, turns, is covered
/// or leaves changes that picture and is not held (missed, it is lost as
/// before). While one is held, the whole frame is searched once every
/// `fullScanInterval`, not at every call; a whole frame that shows another
/// face but not the tracked one is left to the tracker's hand-over, as before.
/// A search that finds nothing on a picture crossed by a lamp's flicker bands
/// (`FlickerBands`: a rolling shutter under mains light) is made again with the
/// bands divided out; a picture without them costs only the look for them.
/// Faces beside the tracked one from the last whole-frame search are carried
/// with every windowed result until the next one, for the quality monitor
/// (`multipleFaces` must hold for a second); the tracker is given only what was
/// searched, so a passing false hit cannot be carried into a hand-over.
package final class FaceFinder {
    /// One search's faces, normalized.
    package struct Result: Sendable, Equatable {
        /// Found by this search (the window's, or the whole frame's).
        package var found: [NormalizedRect]
        /// Found beside the tracked face by the last whole-frame search, not searched again.
        package var carried: [NormalizedRect]
        /// Nothing was searched: `found` is the last windowed search's, reused
        /// because the picture in the window did not change since.
        package var reused = false
        package var all: [NormalizedRect] { found + carried }
    }

    package struct Configuration: Sendable {
        /// Seconds between whole-frame searches while a face is tracked.
        package var fullScanInterval = 1.0
        /// Seconds between whole-frame searches while nothing outside the window changes.
        package var quietScanInterval = 3.0
        /// A block outside the window whose mean moved by more than this many luma
        /// levels since the last whole-frame search, at every offset up to
        /// `changeShift` pixels, is a change (`BlockMeans`).
        package var changeThreshold: Float = 8
        package var changeShift = 2
        /// The window reaches this many face widths / heights beyond the tracked box on each side.
        package var margin: Float = 0.5
        /// Face sizes searched in the window, relative to the tracked box: wide
        /// enough for every raw hit that clusters with the face's, so its box comes
        /// out as a whole-frame search draws it. (Starting at 0.6 would take a third
        /// off a windowed search, but a rare hit at 0.5-0.6 of the face's size does
        /// join its cluster: on JPEG-compressed and moving clips boxes moved, and the
        /// accuracy benchmark's confidence dropped on some.)
        package var sizeRange: ClosedRange<Float> = 0.5...2.0
        /// Seconds a windowed search's faces are reused while the window's picture
        /// is unchanged (0: search the window on every call).
        package var windowRefreshInterval = 1.0
        /// The shift allowed inside the window (the threshold is `changeThreshold`):
        /// none, so a face that moves by a pixel or two across its blocks' edges is
        /// searched for again, as before. (Allowing 2 pixels there, as outside, reused
        /// about a tenth more results on a still clip but moved more regions in the
        /// accuracy benchmark: more of its clips changed band.)
        package var windowChangeShift = 0
        /// A face the detector misses is held while the block means of its box
        /// correlate at least this well with those at its last detection. On a
        /// 96-pixel face (320-pixel thumbnail): a still one stays at 0.98 or above
        /// through a board clip's gain steps, flicker and noise; the same box moved
        /// 2 pixels gives 0.97-0.98, 4 pixels 0.88-0.93, 8 pixels 0.64-0.74 (the
        /// generated face and the astronaut photo), so a face that moves by more
        /// than a few percent of its size, turns or leaves is not held.
        package var holdCorrelation: Float = 0.96
        /// With no face tracked, every thumbnail is searched whole: a face coming in
        /// is found at once. Once no face has been found for `emptyPatience` seconds,
        /// a picture unchanged since the last search (the `BlockMeans` test, over the
        /// whole frame) is searched only every `emptyScanInterval`: an empty room
        /// costs a monitor a fifth of the searches, while a face coming in changes
        /// the picture and is searched for at once. The patience keeps the first
        /// seconds of a scan searching every thumbnail, for a face the cascade
        /// misses on some frames of a still picture. (0: every thumbnail always.)
        package var emptyPatience = 3.0
        package var emptyScanInterval = 0.5
        /// A search that finds nothing is made again with a lamp's flicker bands divided
        /// out when the picture shows them (`FlickerBands`).
        package var removesFlickerBands = true
        package init() {}
    }

    package let configuration: Configuration
    private let detector: FaceDetector
    private let keep: ([DetectedFace]) -> [DetectedFace]
    private var lastFullScan = -Double.infinity
    /// When the whole frame was last searched or found unchanged outside the window.
    private var lastLook = -Double.infinity
    /// The picture at the last whole-frame search.
    private var lastFullPicture: BlockMeans?
    /// Faces other than the tracked one at the last whole-frame search, normalized.
    private var others = [NormalizedRect]()
    /// The last windowed search: its area, the picture there, what it found and when.
    private var lastWindow: (area: PixelRect, picture: BlockMeans, found: [NormalizedRect], time: Double)?
    /// The tracked face's box at its last detection, thumbnail pixels, and the picture there.
    private var lastFound: (area: PixelRect, picture: BlockMeans)?
    /// With no face tracked: since when the whole-frame searches have found none,
    /// and the picture at the last of them.
    private var emptySince: Double?
    private var lastEmpty: (picture: BlockMeans, time: Double)?
    /// Searches made, for tests and benchmarks.
    package private(set) var fullScans = 0
    package private(set) var windowScans = 0
    /// Whole-frame searches skipped because nothing outside the window changed.
    package private(set) var quietSkips = 0
    /// Windowed searches skipped because nothing inside the window changed.
    package private(set) var windowSkips = 0
    /// Calls that held a face the detector missed, its picture unchanged but for a gain.
    package private(set) var holds = 0
    /// Whole-frame searches skipped because the picture with no face did not change.
    package private(set) var emptySkips = 0
    /// Searches made again with a lamp's flicker bands divided out (`FlickerBands`).
    package private(set) var debandedSearches = 0
    /// This call's thumbnail with its flicker bands divided out: nil until looked for, then
    /// `.some(nil)` when it has none. A call can search twice (its window, then the whole frame),
    /// and the bands are looked for once.
    private var debanded: LumaThumbnail??

    /// `keep` filters each search's raw faces (e.g. dropping boxes around smaller faces).
    package init(detector: FaceDetector, configuration: Configuration = Configuration(),
                 keep: @escaping ([DetectedFace]) -> [DetectedFace] = { $0 }) {
        self.detector = detector
        self.configuration = configuration
        self.keep = keep
    }

    /// Faces on `thumbnail` (taken at `time` seconds), normalized, the tracked
    /// one (`tracked`, nil when none) searched for near its last place.
    package func find(in thumbnail: LumaThumbnail, tracked: NormalizedRect?, at time: Double)
        throws(CoreError) -> Result {
        debanded = nil
        if let tracked, time >= lastLook {
            guard let window = window(around: tracked, in: thumbnail) else {
                return try searchWithoutWindow(thumbnail, tracked: tracked, at: time)
            }
            guard time - lastLook < configuration.fullScanInterval || unchanged(thumbnail, outside: window.area, at: time)
            else { return try searchWhole(thumbnail, tracked: tracked, at: time) }
            if let kept = keptWindow(thumbnail, in: window.area, at: time) {
                windowSkips += 1
                return Result(found: kept, carried: others, reused: true)
            }
            windowScans += 1
            let found = try search(thumbnail, in: window.area, minSize: window.minSize, maxSize: window.maxSize)
            // A face near the area's edge may have had some of its raw hits cut off,
            // which would move its box: only faces well inside the area are taken.
            if !found.isEmpty, found.allSatisfy({ clear(of: window.area, $0, in: thumbnail) }) {
                remember(found.min { $0.distance(to: tracked) < $1.distance(to: tracked) }, in: thumbnail)
                // The picture there, grown by the shift allowed, for the next calls.
                if configuration.windowRefreshInterval > 0 {
                    let shift = configuration.windowChangeShift
                    let grown = PixelRect(x: window.area.x - shift, y: window.area.y - shift,
                                          width: window.area.width + 2 * shift, height: window.area.height + 2 * shift)
                    let picture = shift == 0 ? BlockMeans(thumbnail, gridOver: window.area)
                        : BlockMeans(thumbnail, covering: grown)
                    lastWindow = (window.area, picture, found, time)
                }
                return Result(found: found, carried: others)
            }
            if found.isEmpty, time - lastFullScan < configuration.fullScanInterval,
               let held = hold(tracked, in: thumbnail) {
                return held
            }
        }
        if tracked == nil, stillEmpty(thumbnail, at: time) {
            emptySkips += 1
            return Result(found: [], carried: [])
        }
        return try searchWhole(thumbnail, tracked: tracked, at: time)
    }

    /// Whether a search with no face tracked can be skipped: none has been found for
    /// `emptyPatience`, the last search is recent and the picture has not changed since.
    private func stillEmpty(_ thumbnail: LumaThumbnail, at time: Double) -> Bool {
        guard configuration.emptyPatience > 0, let since = emptySince, let last = lastEmpty,
              time >= last.time, time - since >= configuration.emptyPatience,
              time - last.time < configuration.emptyScanInterval
        else { return false }
        return !BlockMeans(thumbnail).changed(since: last.picture, outside: nil,
                                              threshold: configuration.changeThreshold,
                                              shift: configuration.changeShift)
    }

    /// A face filling most of the frame leaves no window to search (one would cost
    /// about what the whole frame does): the whole frame is its window, searched
    /// whole, and the faces found are reused, as a window's are, while the picture
    /// does not change (`windowRefreshInterval`, `keptWindow`).
    private func searchWithoutWindow(_ thumbnail: LumaThumbnail, tracked: NormalizedRect, at time: Double)
        throws(CoreError) -> Result {
        let whole = PixelRect(x: 0, y: 0, width: thumbnail.width, height: thumbnail.height)
        if let kept = keptWindow(thumbnail, in: whole, at: time) {
            windowSkips += 1
            return Result(found: kept, carried: [], reused: true)
        }
        let result = try searchWhole(thumbnail, tracked: tracked, at: time)
        // Kept only when it found the tracked face: a reused result confirms that face
        // (`FaceTracker.confirm`), so one without it must be a search of its own each time.
        if configuration.windowRefreshInterval > 0, !result.reused,
           FaceTracker.sameFace(as: tracked, in: result.found) != nil {
            lastWindow = (whole, BlockMeans(thumbnail), result.found, time)
        }
        return result
    }

    /// The whole-frame search.
    private func searchWhole(_ thumbnail: LumaThumbnail, tracked: NormalizedRect?, at time: Double)
        throws(CoreError) -> Result {
        lastWindow = nil
        fullScans += 1
        let all = try search(thumbnail, in: nil, minSize: nil, maxSize: nil)
        if tracked == nil, all.isEmpty {
            if emptySince == nil { emptySince = time }
            if configuration.emptyPatience > 0 { lastEmpty = (BlockMeans(thumbnail), time) }
        } else {
            forgetEmpty()
        }
        // The tracked face is the one nearest its box; the rest are remembered.
        // Without a track yet, the first call that has one searches the whole
        // frame again, so the face it tracks is never remembered as another.
        if let tracked, let main = all.min(by: { $0.distance(to: tracked) < $1.distance(to: tracked) }) {
            searchedWhole(thumbnail, at: time)
            others = all.filter { $0 != main }
            remember(main, in: thumbnail)
        } else {
            // No face, or none tracked yet. A tracked face the whole frame no longer
            // shows may still be held; then the next whole search is due in a second.
            others = []
            if let tracked, let held = hold(tracked, in: thumbnail) {
                searchedWhole(thumbnail, at: time)
                return held
            }
            forgetFullScan()
        }
        return Result(found: all, carried: [])
    }

    /// Forgets the faces beside the tracked one (tracking stopped).
    package func reset() {
        forgetFullScan()
        forgetEmpty()
    }

    private func forgetEmpty() {
        emptySince = nil
        lastEmpty = nil
    }

    /// Notes a whole-frame search that accounted for the tracked face (found or held).
    private func searchedWhole(_ thumbnail: LumaThumbnail, at time: Double) {
        lastFullScan = time
        lastLook = time
        lastFullPicture = BlockMeans(thumbnail)
    }

    private func forgetFullScan() {
        others = []
        lastWindow = nil
        lastFound = nil
        lastFullScan = -.infinity
        lastLook = -.infinity
        lastFullPicture = nil
    }

    /// Keeps the picture in the box of the tracked face's detection `face`.
    private func remember(_ face: NormalizedRect?, in thumbnail: LumaThumbnail) {
        guard let face else { return }
        let w = Float(thumbnail.width), h = Float(thumbnail.height)
        let area = BlockMeans.clip(PixelRect(x: Int((face.x * w).rounded()), y: Int((face.y * h).rounded()),
                                             width: Int((face.width * w).rounded()),
                                             height: Int((face.height * h).rounded())),
                                   width: thumbnail.width, height: thumbnail.height)
        lastFound = (area, BlockMeans(thumbnail, gridOver: area))
    }

    /// The tracked face held where it is, when the picture in its box at its last
    /// detection is still there up to a gain (a reused result: the tracker
    /// confirms it, the quality monitor sees it, with the faces beside it from the
    /// last whole-frame search); nil otherwise.
    private func hold(_ tracked: NormalizedRect, in thumbnail: LumaThumbnail) -> Result? {
        guard let last = lastFound,
              let r = BlockMeans(thumbnail, gridOver: last.area).correlation(with: last.picture, inside: last.area),
              r >= configuration.holdCorrelation
        else { return nil }
        holds += 1
        return Result(found: [tracked], carried: others, reused: true)
    }

    /// Whether a due whole-frame search can be skipped: the last one is recent
    /// enough and nothing outside `area` changed since. A skip counts as a look.
    private func unchanged(_ thumbnail: LumaThumbnail, outside area: PixelRect, at time: Double) -> Bool {
        guard let lastFullPicture, time >= lastFullScan, time - lastFullScan < configuration.quietScanInterval,
              !BlockMeans(thumbnail).changed(since: lastFullPicture, outside: area,
                                             threshold: configuration.changeThreshold, shift: configuration.changeShift)
        else { return false }
        lastLook = time
        quietSkips += 1
        return true
    }

    /// The last windowed search's faces, when it searched this same area recently
    /// enough and nothing inside the area changed since.
    private func keptWindow(_ thumbnail: LumaThumbnail, in area: PixelRect, at time: Double) -> [NormalizedRect]? {
        guard let last = lastWindow, last.area == area, time >= last.time,
              time - last.time < configuration.windowRefreshInterval,
              !BlockMeans(thumbnail, gridOver: area).changed(since: last.picture, inside: area,
                                                            threshold: configuration.changeThreshold,
                                                            shift: configuration.windowChangeShift)
        else { return nil }
        return last.found
    }

    private typealias Window = (area: PixelRect, minSize: Int, maxSize: Int)

    /// The pixel area and face sizes to search for `box`; nil when the area
    /// would be most of the frame anyway (a full search costs about the same).
    private func window(around box: NormalizedRect, in thumbnail: LumaThumbnail) -> Window? {
        let w = Float(thumbnail.width), h = Float(thumbnail.height)
        let left = max(0, Int(((box.x - configuration.margin * box.width) * w).rounded(.down)))
        let top = max(0, Int(((box.y - configuration.margin * box.height) * h).rounded(.down)))
        let right = min(thumbnail.width, Int(((box.x + (1 + configuration.margin) * box.width) * w).rounded(.up)))
        let bottom = min(thumbnail.height, Int(((box.y + (1 + configuration.margin) * box.height) * h).rounded(.up)))
        guard right > left, bottom > top, (right - left) * (bottom - top) * 10 < thumbnail.width * thumbnail.height * 8
        else { return nil }
        let side = max(box.width * w, box.height * h)
        return (PixelRect(x: left, y: top, width: right - left, height: bottom - top),
                max(1, Int((side * configuration.sizeRange.lowerBound).rounded(.down))),
                Int((side * configuration.sizeRange.upperBound).rounded(.up)))
    }

    /// Whether `box` keeps a quarter of its size from every edge of `area` that is
    /// not the image's own edge (where a whole-image search has no more hits either).
    private func clear(of area: PixelRect, _ box: NormalizedRect, in thumbnail: LumaThumbnail) -> Bool {
        let w = Float(thumbnail.width), h = Float(thumbnail.height)
        let gapX = box.width * w / 4, gapY = box.height * h / 4
        let left = box.x * w, top = box.y * h, right = (box.x + box.width) * w, bottom = (box.y + box.height) * h
        return (area.x == 0 || left - Float(area.x) >= gapX)
            && (area.y == 0 || top - Float(area.y) >= gapY)
            && (area.x + area.width == thumbnail.width || Float(area.x + area.width) - right >= gapX)
            && (area.y + area.height == thumbnail.height || Float(area.y + area.height) - bottom >= gapY)
    }

    /// One search of `area` (nil: the whole frame); when it finds nothing on a picture
    /// crossed by a lamp's flicker bands, a second one with the bands divided out.
    private func search(_ thumbnail: LumaThumbnail, in area: PixelRect?, minSize: Int?, maxSize: Int?)
        throws(CoreError) -> [NormalizedRect] {
        var faces = try detector.detect(luma: thumbnail.pixels, width: thumbnail.width, height: thumbnail.height,
                                        minFaceSize: minSize, maxFaceSize: maxSize, area: area)
        if faces.isEmpty, configuration.removesFlickerBands {
            if debanded == nil { debanded = .some(FlickerBands(in: thumbnail)?.removed(from: thumbnail)) }
            if let picture = debanded ?? nil {
                debandedSearches += 1
                faces = try detector.detect(luma: picture.pixels, width: thumbnail.width, height: thumbnail.height,
                                            minFaceSize: minSize, maxFaceSize: maxSize, area: area)
            }
        }
        let w = Float(thumbnail.width), h = Float(thumbnail.height)
        return keep(faces).map {
            NormalizedRect(x: Float($0.x) / w, y: Float($0.y) / h, width: Float($0.width) / w, height: Float($0.height) / h)
        }
    }
}

extension NormalizedRect {
    /// Distance between two boxes' centres plus the difference of their sizes.
    fileprivate func distance(to other: NormalizedRect) -> Float {
        abs(centerX - other.centerX) + abs(centerY - other.centerY) + abs(width - other.width)
    }
}
