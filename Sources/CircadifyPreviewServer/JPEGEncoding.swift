/// The video's JPEG settings.
enum JPEGEncoding {
    /// The quality of the video's frames: small enough for several viewers on a board's Wi-Fi.
    static let quality = 80
}
