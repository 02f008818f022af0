; Assista Desktop for Windows: a per-user installer (no administrator rights needed).
;
; Compiled by packaging/nsis.py (build.py on Windows; a compile check on Linux):
;   makensis -DAPP_VERSION=0.1.0 -DAPP_NUMERIC_VERSION=0.1.0.0 -DBUNDLE_DIR=dist\assista
;            -DOUT_FILE=dist\Assista-0.1.0-windows-x64-setup.exe -DICON=resources\icons\assista.ico
;            packaging\windows\assista.nsi
;
; Installs the PyInstaller bundle (assista.exe for the command line, assista-gui.exe
; without a console) to %LOCALAPPDATA%\Programs\Assista, adds a Start menu entry and an
; "Apps & features" entry for the current user, and writes an uninstaller. Chats,
; settings and keys (in %APPDATA%\Assista and the Credential Manager) are left alone on
; uninstall, like every other app's user data.

Unicode true
ManifestDPIAware true
SetCompressor /SOLID lzma

!ifndef APP_VERSION | APP_NUMERIC_VERSION | BUNDLE_DIR | OUT_FILE | ICON
  !error "define APP_VERSION, APP_NUMERIC_VERSION, BUNDLE_DIR, OUT_FILE and ICON (see packaging/nsis.py)"
!endif

!define APP_NAME "Assista"
!define APP_FULL_NAME "Assista Desktop"
!define PUBLISHER "Assista project"
!define GUI_EXE "assista-gui.exe"
!define CLI_EXE "assista.exe"
!define REG_APP "Software\Assista"
!define REG_UNINSTALL "Software\Microsoft\Windows\CurrentVersion\Uninstall\AssistaDesktop"

!include "MUI2.nsh"
!include "FileFunc.nsh"

Name "${APP_FULL_NAME}"
OutFile "${OUT_FILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APP_NAME}"
InstallDirRegKey HKCU "${REG_APP}" "InstallDir"
BrandingText "${APP_FULL_NAME} ${APP_VERSION}"

; Version information of the installer .exe (Properties > Details).
VIProductVersion "${APP_NUMERIC_VERSION}"
VIFileVersion "${APP_NUMERIC_VERSION}"
VIAddVersionKey /LANG=1033 "ProductName" "${APP_FULL_NAME}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${APP_VERSION}"
VIAddVersionKey /LANG=1033 "FileVersion" "${APP_NUMERIC_VERSION}"
VIAddVersionKey /LANG=1033 "FileDescription" "${APP_FULL_NAME} installer"
VIAddVersionKey /LANG=1033 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1033 "LegalCopyright" "${PUBLISHER}, MIT licence"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${GUI_EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP_NAME}"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  SetShellVarContext current
FunctionEnd

Function un.onInit
  SetShellVarContext current
FunctionEnd

Section "${APP_NAME}" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; An upgrade replaces the previous version's files completely.
  RMDir /r "$INSTDIR\_internal"
  File /r "${BUNDLE_DIR}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${APP_NAME}.lnk" "$INSTDIR\${GUI_EXE}" "" "$INSTDIR\${GUI_EXE}" 0

  WriteRegStr HKCU "${REG_APP}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${REG_UNINSTALL}" "DisplayName" "${APP_FULL_NAME}"
  WriteRegStr HKCU "${REG_UNINSTALL}" "DisplayVersion" "${APP_VERSION}"
  WriteRegStr HKCU "${REG_UNINSTALL}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${REG_UNINSTALL}" "DisplayIcon" "$INSTDIR\${GUI_EXE},0"
  WriteRegStr HKCU "${REG_UNINSTALL}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${REG_UNINSTALL}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegStr HKCU "${REG_UNINSTALL}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /S'
  WriteRegDWORD HKCU "${REG_UNINSTALL}" "NoModify" 1
  WriteRegDWORD HKCU "${REG_UNINSTALL}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${REG_UNINSTALL}" "EstimatedSize" "$0"
SectionEnd

Section "Uninstall"
  Delete "$SMPROGRAMS\${APP_NAME}.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${GUI_EXE}"
  Delete "$INSTDIR\${CLI_EXE}"
  Delete "$INSTDIR\Uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${REG_UNINSTALL}"
  DeleteRegKey HKCU "${REG_APP}"
SectionEnd
