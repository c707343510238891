import ArgumentParser

@main
struct Circadify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "circadify",
        abstract: "Contactless vital signs from a V4L2 camera.",
        discussion: """
            Until the signal pipeline lands, `samples` prints what the realtime core measures per frame \
            (mean skin colour of the forehead and cheeks, luma, drop counts).
            """,
        subcommands: [Devices.self, Samples.self])
}
