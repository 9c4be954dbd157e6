# What the PowerShell hooks share, dot-sourced by each after it sets $HookName (the name its messages
# start with): stop on the first error, strict mode, and the two helpers every hook needs.
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest

function Fail([string[]] $Lines) {
    foreach ($line in $Lines) { [Console]::Error.WriteLine($line) }
    exit 1
}
function Get-Required([string] $Name, [string] $Hint = '') {
    $value = [Environment]::GetEnvironmentVariable($Name)
    if (-not $value) { Fail "${HookName}: $Name is not set$Hint" }
    $value
}
