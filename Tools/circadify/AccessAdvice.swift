import Circadify
import Foundation

/// What to tell a user whose camera this process may not use, in plain words.
enum AccessAdvice {
    static func lines(for access: DeviceAccess, path: String) -> [String] {
        switch access {
        case .authorized:
            return []
        case .denied:
            let group = owningGroup(path) ?? "video"
            // Joining root's group would hand out far more than the camera.
            if group == "root" { return rootOwnedNode }
            return [
                "fix: add your user to the '\(group)' group, then log out and back in:",
                "       sudo usermod -aG \(group) $USER",
                "     or give the camera to a group you are in with a udev rule, e.g. in",
                "     /etc/udev/rules.d/70-camera.rules:",
                "       SUBSYSTEM==\"video4linux\", GROUP=\"\(group)\", MODE=\"0660\"",
                "     then: sudo udevadm control --reload && sudo udevadm trigger",
            ]
        case .restricted:
            return [
                "fix: the permissions allow it but a system policy blocks it; ask whoever manages",
                "     this machine or container (device cgroup rules, an AppArmor/SELinux profile, a nodev mount)",
            ]
        case .notDetermined:
            return ["fix: plug the camera in or load its driver; `ls /dev/video*` should show the node"]
        }
    }

    /// A node only root may open (no udev rule gave it a group): give it to 'video' first.
    private static let rootOwnedNode = [
        "fix: give the camera to the 'video' group with a udev rule, e.g. in",
        "     /etc/udev/rules.d/70-camera.rules:",
        "       SUBSYSTEM==\"video4linux\", GROUP=\"video\", MODE=\"0660\"",
        "     then: sudo udevadm control --reload && sudo udevadm trigger",
        "     and add your user to that group, then log out and back in:",
        "       sudo usermod -aG video $USER",
    ]

    /// The name of the group owning the node, when there is one.
    private static func owningGroup(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let name = attributes[.groupOwnerAccountName] as? String, !name.isEmpty
        else { return nil }
        return name
    }

}
