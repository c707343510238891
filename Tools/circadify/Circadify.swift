import ArgumentParser

@main
struct Circadify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "circadify",
        abstract: "Contactless vital signs from a V4L2 camera or a video file.",
        discussion: """
            `scan` measures heart rate, heart-rate variability and breathing from a face; `devices` \
            lists the cameras and whether this user may open them; `faces` finds faces in a photo; `samples` prints what the \
            realtime core measures per frame (mean skin colour of the forehead and cheeks, luma, drops).
            """,
        subcommands: [Scan.self, Devices.self, Faces.self, Samples.self])
}
