/// What the accuracy benchmark cannot do with what it was given, said plainly.
package struct AccuracyError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
