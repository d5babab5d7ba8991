<#
.SYNOPSIS
Gets things.
#>
function Get-Thing {
  param([string]$Name)
  Write-Output $Name
  Invoke-Helper -X 1
}
class Widget {
  [string]$Id
  [void] Show() { Write-Host $this.Id }
}
. ./lib.ps1
Import-Module Foo
$Global:Count = 0
function global:Prompt { "PS> " }
