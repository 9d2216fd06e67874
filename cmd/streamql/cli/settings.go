package cli

import "streamql/internal/session"

var _ session.SettingsLister = (*Session)(nil)

// SettingValues implements session.SettingsLister for Flink's SET; (SPEC 3): the
// command line's settings with their current values.
func (s *Session) SettingValues() map[string]string {
	timer := "off"
	if s.Settings.Timer {
		timer = "on"
	}
	mode := s.Settings.ResultMode
	if mode == "" {
		mode = "auto"
	}
	return map[string]string{"format": s.Format, "side-dir": s.SideDir, "timer": timer, session.ResultModeKey: mode}
}
