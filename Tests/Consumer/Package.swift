// swift-tools-version:6.0
// A client of Circadify, written the way a user writes one: the package by URL and
// version, the product by name. run-consumer.sh points CIRCADIFY_PACKAGE_URL at a
// tagged copy of the checkout, so CI proves the package is consumable as released.
import PackageDescription

let circadifyURL = Context.environment["CIRCADIFY_PACKAGE_URL"] ?? "https://github.com/circadify/circadify.git"

let package = Package(
    name: "circadify-consumer",
    dependencies: [
        .package(url: circadifyURL, from: "0.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "consumer",
            dependencies: [.product(name: "Circadify", package: "circadify")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
